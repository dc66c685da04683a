import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, ticketInput, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { TICKETING_TRUST_PROXY: 'on' } });
  await s.call('POST', '/admin?r=blocklists', { json: { ips: ['203.0.113.9'] } });
});
afterAll(() => s.close());

const create = (forwardedFor: string) =>
  s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(), headers: { 'X-Forwarded-For': forwardedFor } });

describe('TICKETING_TRUST_PROXY=on', () => {
  it('takes the client from the last X-Forwarded-For entry, the one the proxy added', async () => {
    // nginx's $proxy_add_x_forwarded_for appends the real address to whatever the client sent: the
    // blocked client 203.0.113.9 gains nothing by putting another address in front of its own,
    expect((await create('198.51.100.7, 203.0.113.9')).body.error?.code).toBe('blocked');
    // and the client 198.51.100.7 is judged by its own address, not by one it names.
    expect((await create('203.0.113.9, 198.51.100.7')).status).toBe(201);
    expect((await create('203.0.113.9')).body.error?.code).toBe('blocked');
  });
});
