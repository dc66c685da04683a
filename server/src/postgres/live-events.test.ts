import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openSse } from '../test-support/sse.js';

// Live events between two instances on one database (LISTEN/NOTIFY). `postgres` project only.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function listen(s: TestServer, headers: Record<string, string> = {}) {
  const c = await openSse(`${s.base}/events`, { Authorization: `Bearer ${s.keys.sk}`, ...headers });
  cleanup.push(() => c.close());
  await c.next((e) => e.comment === 'connected');
  return c;
}

describe('live events across instances', () => {
  it('reach a listener on the other instance, large rows included, with ids that resume there', async () => {
    const a = await startServer();
    cleanup.push(() => a.close());
    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    const onA = await listen(a);
    const onB = await listen(b);

    const t = await createTicket(b);
    const sent = Date.now();
    await b.call('POST', '/reply', { key: b.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'via b' } });
    const e = await onA.next((x) => x.event === 'ticket.replied' && x.data.ticket.id === t.id, 1000);
    expect(Date.now() - sent).toBeLessThan(1000);
    // Both instances name the event alike, so a client may resume on either.
    const same = await onB.next((x) => x.id === e.id);
    expect(same.event).toBe('ticket.replied');

    // A row too large for a NOTIFY payload (8000 bytes) travels as its id and is read on arrival.
    await a.call('POST', '/admin?r=categories', {
      json: {
        categories: [
          {
            id: 'big',
            name: 'Big',
            fields: [
              { id: 'one', label: 'One', type: 'textarea' },
              { id: 'two', label: 'Two', type: 'textarea' },
            ],
          },
        ],
      },
    });
    const big = await createTicket(a, { category: 'big', fields: { one: 'x'.repeat(4500), two: 'y'.repeat(4500) } });
    const arrived = await onB.next((x) => x.event === 'ticket.created' && x.data.ticket.id === big.id);
    expect(arrived.data.ticket.fields.one).toHaveLength(4500);

    const resumed = await listen(a, { 'Last-Event-ID': e.id! });
    await resumed.next((x) => x.event === 'ticket.created' && x.data.ticket.id === big.id);
  });
});
