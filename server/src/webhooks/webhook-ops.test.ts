import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startReceiver, type ReceivedRequest } from '../test-support/receiver.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// The console's webhook tools: a signed test event, and "retry now" for a delivery waiting after a failure.
const now = new Date('2026-11-23T10:00:00Z'); // frozen: a failed delivery's next try never comes by itself
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
const SECRET = 'whsec_0123456789abcdef';

function verify(req: ReceivedRequest, secret: string): boolean {
  const header = String(req.headers['ticketing-signature'] ?? '');
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1 = /v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!t || !v1) return false;
  return timingSafeEqual(createHmac('sha256', secret).update(`${t}.${req.body}`).digest(), Buffer.from(v1, 'hex'));
}

async function setup(respond?: Parameters<typeof startReceiver>[0]) {
  const hook = await startReceiver(respond);
  cleanup.push(() => hook.close());
  const s = await startServer({ clock, env: { TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' } });
  cleanup.push(() => s.close());
  const modules = ['kb', 'uploads', 'rating', 'close_request'].map((name) => ({ name, enabled: true }));
  const res = await s.call('POST', '/admin?r=modules', {
    json: {
      modules: [
        ...modules,
        {
          name: 'webhooks',
          enabled: true,
          settings: { url: `${hook.url}/hooks`, secret: SECRET, events: ['ticket.created'] },
        },
      ],
    },
  });
  expect(res.status).toBe(200);
  return { s, hook };
}

const webhookLog = async (s: TestServer) => (await s.call('GET', '/admin?r=webhook_log')).body.webhook_log;

describe('POST /admin/webhook-test', () => {
  it('sends a signed ping to the stored URL and reports status and duration', async () => {
    const { s, hook } = await setup();
    const res = await s.call('POST', '/admin/webhook-test', { json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      url: `${hook.url}/hooks`,
      event_id: expect.stringMatching(/^evt_/),
      ok: true,
      status_code: 200,
      duration_ms: expect.any(Number),
      error: null,
    });
    expect(hook.received).toHaveLength(1);
    const req = hook.received[0]!;
    expect(verify(req, SECRET)).toBe(true);
    expect(verify(req, 'whsec_another-secret-value')).toBe(false);
    expect(JSON.parse(req.body)).toMatchObject({ id: res.body.event_id, type: 'ping', data: {} });
    expect(await webhookLog(s)).toEqual([]); // a test is no delivery
    const audit = (await s.call('GET', '/admin?r=audit&limit=1')).body.audit[0];
    expect(audit).toMatchObject({ action: 'webhook.test', target: `${hook.url}/hooks` });
  });

  it('reports a receiver’s error status, and a missing URL; admins only', async () => {
    const { s } = await setup(() => ({ status: 503 }));
    const res = await s.call('POST', '/admin/webhook-test', { json: {} });
    expect(res.body).toMatchObject({ ok: false, status_code: 503, error: 'status 503' });
    await s.call('POST', '/admin?r=modules', { json: { modules: [{ name: 'webhooks', enabled: false }] } });
    const none = await s.call('POST', '/admin/webhook-test', { json: {} });
    expect(none.body).toMatchObject({
      url: null,
      ok: false,
      status_code: null,
      error: 'the webhooks module has no URL',
    });
    expect((await s.call('POST', '/admin/webhook-test', { key: s.keys.skTest, json: {} })).status).toBe(403);
  });
});

describe('POST /admin/outbox-retry', () => {
  it('sends a failed delivery again at once, named by its event id from webhook_log', async () => {
    const { s, hook } = await setup((_req, index) => ({ status: index === 0 ? 500 : 200 }));
    await createTicket(s);
    await eventually(async () => (await webhookLog(s)).length === 1, 10_000, 'the first attempt');
    const [first] = await webhookLog(s);
    expect(first).toMatchObject({ ok: false, status_code: 500, attempt: 1 });
    const queued = (await s.call('GET', '/admin?r=outbox')).body.outbox;
    expect(queued).toEqual([
      expect.objectContaining({
        kind: 'webhook',
        state: 'queued',
        attempts: 1,
        next_attempt_at: '2026-11-23T10:00:10.000Z',
      }),
    ]);

    const res = await s.call('POST', '/admin/outbox-retry', { json: { id: first.event_id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: queued[0].id, next_attempt_at: now.toISOString() });
    await eventually(async () => (await webhookLog(s)).length === 2, 10_000, 'the retry');
    const [second] = await webhookLog(s);
    expect(second).toMatchObject({ ok: true, status_code: 200, attempt: 2, event_id: first.event_id });
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.body).toBe(hook.received[0]!.body); // the same delivery, the same bytes
    await eventually(
      async () => (await s.call('GET', '/admin?r=outbox')).body.outbox.length === 0,
      5000,
      'an empty outbox',
    );

    // Sent now: nothing waits under that id any more.
    const again = await s.call('POST', '/admin/outbox-retry', { json: { id: first.event_id } });
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'delivery_not_found', param: 'id' });
    const audit = (await s.call('GET', '/admin?r=audit&limit=5')).body.audit;
    expect(
      audit.some((e: { action: string; target: string }) => e.action === 'outbox.retry' && e.target === queued[0].id),
    ).toBe(true);
  });

  it('retries a waiting delivery by its outbox id too', async () => {
    const { s, hook } = await setup((_req, index) => ({ status: index === 0 ? 500 : 204 }));
    await createTicket(s);
    await eventually(async () => (await webhookLog(s)).length === 1, 10_000, 'the first attempt');
    const [queued] = (await s.call('GET', '/admin?r=outbox')).body.outbox;
    expect((await s.call('POST', '/admin/outbox-retry', { json: { id: queued.id } })).status).toBe(200);
    await eventually(() => hook.received.length === 2, 10_000, 'the retry');
    expect((await s.call('POST', '/admin/outbox-retry', { json: { id: 'evt_nothing' } })).status).toBe(404);
    expect((await s.call('POST', '/admin/outbox-retry', { json: {} })).status).toBe(400);
  });
});
