import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startReceiver, type ReceivedRequest } from '../test-support/receiver.js';
import { createTicket, removeStore, startServer, type TestServer } from '../test-support/server.js';
import { queuedJobIds, storedConfigText, writeStoredConfigText } from '../test-support/stored-tickets.js';

let now = new Date('2026-11-23T10:00:00Z');
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});
const SECRET = 'whsec_0123456789abcdef';
// The receivers listen on loopback, which webhooks may call only when the operator allows it.
const env = { TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' };

/** What a receiver does: recompute the HMAC over "<t>.<body>" and compare in constant time. */
function verify(req: ReceivedRequest, secret: string): boolean {
  const header = String(req.headers['ticketing-signature'] ?? '');
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1 = /v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${req.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

async function setup(respond?: Parameters<typeof startReceiver>[0], events?: string[]) {
  const hook = await startReceiver(respond);
  cleanup.push(() => hook.close());
  const s = await startServer({ clock, env });
  cleanup.push(() => s.close());
  const settings = { url: `${hook.url}/hooks`, secret: SECRET, ...(events ? { events } : {}) };
  // The whole list is replaced, and a module missing from it counts as off: keep the customer modules on.
  const modules = ['kb', 'uploads', 'rating', 'close_request'].map((name) => ({ name, enabled: true }));
  const res = await s.call('POST', '/admin?r=modules', {
    json: { modules: [...modules, { name: 'webhooks', enabled: true, settings }] },
  });
  expect(res.status).toBe(200);
  return { s, hook };
}

const log = async (s: TestServer) => (await s.call('GET', '/admin?r=webhook_log')).body.webhook_log;

describe('webhooks', () => {
  it('POSTs every event as signed JSON', async () => {
    const { s, hook } = await setup();
    const t = await createTicket(s);
    // The reply names the status it keeps, so the one status change is /status's.
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'hi', status: 'open' } });
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'pending' } });
    await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'high' } });
    await s.call('POST', '/assign', { json: { ticket_id: t.id, agent_id: '' } });
    await s.call('POST', '/close-request', { json: { ticket_id: t.id } });
    await s.call('POST', '/close-resolve', { json: { ticket_id: t.id, accept: true } });
    await s.call('POST', '/rate', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, score: 5 } });
    const form = new FormData();
    form.append('ticket_id', t.id);
    form.append('file', new Blob(['x']), 'a.txt');
    await s.call('POST', '/upload', { multipart: form });
    await s.call('DELETE', '/delete', { json: { ticket_id: t.id } });
    const types = [
      'ticket.created',
      'ticket.replied',
      'ticket.status_changed',
      'ticket.priority_changed',
      'ticket.assigned',
      'ticket.close_requested',
      'ticket.close_resolved',
      'ticket.rated',
      'file.uploaded',
      'ticket.deleted',
    ];
    await eventually(() => hook.received.length === types.length, 5000, 'all deliveries');
    const bodies = hook.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual([...types].sort());
    for (const req of hook.received) {
      expect(verify(req, SECRET)).toBe(true);
      expect(verify(req, 'wrong-secret-000000')).toBe(false);
      expect(req.headers['content-type']).toBe('application/json');
    }
    const created = bodies.find((b) => b.type === 'ticket.created');
    expect(created).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'ticket.created',
      created_at: expect.any(String),
      data: { ticket: expect.objectContaining({ id: t.id, email: t.email, agent_id: null }) },
    });
    // A tampered body fails verification.
    expect(verify({ ...hook.received[0]!, body: hook.received[0]!.body.replace('Ada', 'Eve') }, SECRET)).toBe(false);
  });

  it('sends only the subscribed events', async () => {
    const { s, hook } = await setup(undefined, ['ticket.replied']);
    const t = await createTicket(s);
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'hi' } });
    await eventually(() => hook.received.length === 1, 5000, 'the reply delivery');
    // Deliveries are queued before the answer: once the pass is over and nothing waits, none follows.
    await s.running.deps.outbox.idle();
    expect(await queuedJobIds(s)).toEqual([]);
    expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual(['ticket.replied']);
  });

  it('retries with backoff and logs every attempt under one event id', async () => {
    const { s, hook } = await setup((_req, i) => ({ status: i < 3 ? 503 : 200 }), ['ticket.created']);
    await createTicket(s);
    await s.running.deps.outbox.idle();
    expect(await log(s)).toHaveLength(1);
    const delays = [30, 60, 180]; // seconds of clock to move before each retry
    for (const d of delays) {
      now = new Date(now.getTime() + d * 1000);
      await s.running.scheduler.tick();
    }
    await s.running.deps.outbox.idle();
    expect(await log(s)).toHaveLength(4);
    const entries = (await log(s)).reverse();
    expect(
      entries.map((e: { attempt: number; ok: boolean; status_code: number }) => [e.attempt, e.ok, e.status_code]),
    ).toEqual([
      [1, false, 503],
      [2, false, 503],
      [3, false, 503],
      [4, true, 200],
    ]);
    expect(new Set(entries.map((e: { event_id: string }) => e.event_id)).size).toBe(1);
    expect(entries[0]).toMatchObject({
      event: 'ticket.created',
      url: `${hook.url}/hooks`,
      error: 'status 503',
      duration_ms: expect.any(Number),
    });
    expect(hook.received).toHaveLength(4);
    // Each attempt re-signs with its own timestamp; all verify.
    expect(hook.received.every((r) => verify(r, SECRET))).toBe(true);
  });

  it('keeps pending deliveries across a restart', async () => {
    let up = false;
    const hook = await startReceiver(() => ({ status: up ? 200 : 500 }));
    cleanup.push(() => hook.close());
    const first = await startServer({ clock, env });
    await first.call('POST', '/admin?r=modules', {
      json: {
        modules: [
          { name: 'webhooks', enabled: true, settings: { url: hook.url, secret: SECRET, events: ['ticket.created'] } },
        ],
      },
    });
    await createTicket(first);
    await eventually(() => hook.received.length === 1, 5000, 'the failed attempt');
    await first.close({ keepData: true });
    up = true;
    now = new Date(now.getTime() + 60_000);
    const second = await startServer({ clock, env, dataDir: first.dataDir, keys: first.keys });
    cleanup.push(() => second.close());
    await eventually(() => hook.received.length === 2, 5000, 'the retry after restart');
    expect(hook.received[1]!.body).toBe(hook.received[0]!.body); // the same event, not a new one
  });

  it('gives up after the last attempt, having tried for more than 10 minutes', async () => {
    const { s, hook } = await setup(() => ({ status: 500 }), ['ticket.created']);
    await createTicket(s);
    await eventually(() => hook.received.length === 1, 5000, 'the first attempt');
    for (let i = 0; i < 10; i++) {
      now = new Date(now.getTime() + 3600_000);
      await s.running.scheduler.tick();
    }
    const first = hook.received[0]!.at;
    expect(hook.received.length).toBe(7); // 1 + 6 retries
    expect(await s.running.deps.outbox.pending()).toHaveLength(0);
    expect(first).toBeLessThanOrEqual(hook.received[6]!.at);
  });
});

describe('signing secrets per URL', () => {
  it('give every webhook URL its own secret, shown once, that verifies only its own deliveries', async () => {
    const [a, b, c] = [await startReceiver(), await startReceiver(), await startReceiver()];
    cleanup.push(
      () => a.close(),
      () => b.close(),
      () => c.close(),
    );
    const s = await startServer({ clock, env });
    cleanup.push(() => s.close());
    const moduleUrl = `${a.url}/module`;
    const mod = await s.call('POST', '/admin?r=modules', {
      json: {
        modules: [{ name: 'webhooks', enabled: true, settings: { url: moduleUrl, events: ['ticket.created'] } }],
      },
    });
    expect(mod.body.webhook_secrets_created).toEqual([
      { url: moduleUrl, secret: expect.stringMatching(/^whsec_\w{32}$/) },
    ]);
    const rules = await s.call('POST', '/admin?r=rules', {
      json: {
        rules: ['b', 'c'].map((id) => ({
          id,
          name: id,
          event: 'ticket.created',
          actions: [{ type: 'webhook', value: `${(id === 'b' ? b : c).url}/${id}` }],
        })),
      },
    });
    const created = rules.body.webhook_secrets_created as { url: string; secret: string }[];
    expect(created.map((x) => x.url)).toEqual([`${b.url}/b`, `${c.url}/c`]);
    const secrets = [mod.body.webhook_secrets_created[0].secret, created[0]!.secret, created[1]!.secret];
    expect(new Set(secrets).size).toBe(3);

    await createTicket(s);
    await eventually(() => a.received.length + b.received.length + c.received.length === 3, 5000, 'three deliveries');
    [a, b, c].forEach((receiver, i) => {
      const req = receiver.received[0]!;
      secrets.forEach((secret, j) => expect(verify(req, secret), `receiver ${i}, secret ${j}`).toBe(i === j));
    });

    // Reads never show a secret; the list says which URLs have one and what uses them.
    const list = await s.call('GET', '/admin?r=webhook_secrets');
    expect(list.body.webhook_secrets).toEqual([
      { url: moduleUrl, secret_set: true, used_by: ['modules'] },
      { url: `${b.url}/b`, secret_set: true, used_by: ['rules.b'] },
      { url: `${c.url}/c`, secret_set: true, used_by: ['rules.c'] },
    ]);
    for (const r of ['all', 'rules', 'modules', 'webhook_secrets', 'audit']) {
      const text = (await s.call('GET', `/admin?r=${r}`)).text;
      for (const secret of secrets) expect(text, r).not.toContain(secret);
    }
    // Writing the same configuration again creates no secret and shows none.
    const again = await s.call('POST', '/admin?r=rules', {
      json: { rules: (await s.call('GET', '/admin?r=rules')).body.rules },
    });
    expect(again.body).not.toHaveProperty('webhook_secrets_created');
  });

  it('rotate a URL’s secret (shown once) or take one given, and drop the secret of a URL no longer used', async () => {
    const { s, hook } = await setup(undefined, ['ticket.created']);
    const url = `${hook.url}/hooks`;
    const rotated = await s.call('POST', '/admin?r=webhook_secrets', { json: { url } });
    expect(rotated.status).toBe(200);
    const [{ secret: fresh }] = rotated.body.webhook_secrets_created;
    expect(fresh).toMatch(/^whsec_/);
    await createTicket(s);
    await eventually(() => hook.received.length === 1, 5000, 'the delivery');
    expect(verify(hook.received[0]!, fresh)).toBe(true);
    expect(verify(hook.received[0]!, SECRET)).toBe(false); // the one it had before

    const own = 'my-own-secret-for-this-url';
    const set = await s.call('POST', '/admin?r=webhook_secrets', { json: { url, secret: own } });
    expect(set.body).not.toHaveProperty('webhook_secrets_created');
    expect(set.text).not.toContain(own);
    await createTicket(s);
    await eventually(() => hook.received.length === 2, 5000, 'the second delivery');
    expect(verify(hook.received[1]!, own)).toBe(true);

    const unknown = await s.call('POST', '/admin?r=webhook_secrets', { json: { url: 'https://elsewhere.example/' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('url');
    expect(
      (await s.call('POST', '/admin?r=webhook_secrets', { json: { url, secret: 'short' } })).body.error.param,
    ).toBe('secret');

    await s.call('POST', '/admin?r=modules', { json: { modules: [{ name: 'webhooks', enabled: false }] } });
    expect((await s.call('GET', '/admin?r=webhook_secrets')).body.webhook_secrets).toEqual([]);
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit.map((e: { action: string }) => e.action);
    expect(audit).toEqual(expect.arrayContaining(['webhook_secret.rotate', 'webhook_secret.set']));
  });
});

describe('a configuration from before per-URL secrets', () => {
  it('keeps the module secret for the module URL, and the secrets it generates survive a restart', async () => {
    const [a, b] = [await startReceiver(), await startReceiver()];
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    const first = await startServer({ clock, env });
    await first.close({ keepData: true });
    const old = JSON.parse(await storedConfigText(first));
    delete old.webhook_secrets;
    old.modules = [
      { name: 'webhooks', enabled: true, settings: { url: `${a.url}/m`, secret: SECRET, events: ['ticket.created'] } },
    ];
    old.rules = [
      {
        id: 'r',
        name: 'r',
        enabled: true,
        event: 'ticket.created',
        conditions: [],
        actions: [{ type: 'webhook', value: `${b.url}/r` }],
      },
    ];
    await writeStoredConfigText(first, JSON.stringify(old));
    const stored = async () => JSON.parse(await storedConfigText(first));

    const second = await startServer({ clock, env, dataDir: first.dataDir, keys: first.keys });
    await createTicket(second);
    await eventually(() => a.received.length === 1 && b.received.length === 1, 5000, 'both deliveries');
    expect(verify(a.received[0]!, SECRET)).toBe(true);
    const written = await stored();
    expect(written.modules[0].settings).not.toHaveProperty('secret'); // moved, not copied
    const ruleSecret = written.webhook_secrets.find((s: { url: string }) => s.url === `${b.url}/r`).secret;
    expect(verify(b.received[0]!, ruleSecret)).toBe(true);
    await second.close({ keepData: true });

    const third = await startServer({ clock, env, dataDir: first.dataDir, keys: first.keys });
    cleanup.push(async () => {
      await third.close();
      await removeStore(first.dataDir);
    });
    await createTicket(third);
    await eventually(() => b.received.length === 2, 5000, 'the delivery after the restart');
    expect(verify(b.received[1]!, ruleSecret)).toBe(true);
  });
});
