import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, removeStore, startServer, type TestServer } from '../test-support/server.js';

// After a reply (issue 30): support's reply leaves the ticket waiting on the customer (pending), the
// customer's answer brings it back to open, and a snooze takes a ticket out of needs_reply for a while.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let now = new Date('2026-11-02T09:00:00.000Z');
const clock = () => now;
const later = (ms: number) => (now = new Date(now.getTime() + ms));
const DAY = 86_400_000;

async function server(options: Parameters<typeof startServer>[0] = {}) {
  now = new Date('2026-11-02T09:00:00.000Z');
  const s = await startServer({ clock, ...options });
  cleanup.push(() => s.close());
  return s;
}

const get = async (s: TestServer, id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;
const inView = async (s: TestServer, view: string) =>
  ((await s.call('GET', `/list?view=${view}`)).body.data as { id: string }[]).map((r) => r.id);
const counts = async (s: TestServer) => (await s.call('GET', '/counts')).body.views;

describe('reply_status', () => {
  it('leaves a ticket pending after a support reply by default; the customer’s answer reopens it', async () => {
    const s = await server();
    expect((await s.call('GET', '/admin?r=workflow')).body).toEqual({ workflow: { reply_status: 'pending' } });
    const t = await createTicket(s);
    const replied = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Which colour?' } });
    expect(replied.body.status).toBe('pending');
    // The change is in the activity and the audit log as any status change.
    expect(replied.body.activity.at(-1)).toMatchObject({ type: 'status', from: 'open', to: 'pending' });
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(audit[0]).toMatchObject({ action: 'ticket.status_changed', details: { from: 'open', to: 'pending' } });
    // A note changes nothing.
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'open' } });
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'hm', internal: true } });
    expect((await get(s, t.id)).status).toBe('open');
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Which size?' } });
    const answer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Blue, large' },
    });
    expect(answer.body.status).toBe('open');
  });

  it('takes the status the reply names, then the macro’s, and none at all with reply_status null', async () => {
    const s = await server();
    const t = await createTicket(s);
    const named = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Done', status: 'answered' } });
    expect(named.body.status).toBe('answered');
    const wrong = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'x', status: 'nope' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('status');
    const byCustomer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'x', status: 'closed' },
    });
    expect(byCustomer.status).toBe(403);
    await s.call('POST', '/admin?r=macros', {
      json: { macros: [{ id: 'solved', name: 'Solved', message: 'Solved!', status: 'closed' }] },
    });
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id, macro: 'solved' } })).body.status).toBe('closed');

    // reply_status must be an open, configured status; null keeps the status as before.
    const closed = await s.call('POST', '/admin?r=workflow', { json: { reply_status: 'closed' } });
    expect(closed.status).toBe(400);
    expect(closed.body.error.param).toBe('reply_status');
    expect((await s.call('POST', '/admin?r=workflow', { json: { reply_status: 'nope' } })).status).toBe(400);
    expect((await s.call('POST', '/admin?r=workflow', { json: { reply_status: null } })).status).toBe(200);
    const other = await createTicket(s);
    expect((await s.call('POST', '/reply', { json: { ticket_id: other.id, message: 'Hi' } })).body.status).toBe('open');
    await s.call('POST', '/admin?r=workflow', { json: { reply_status: 'answered' } });
    expect((await s.call('POST', '/reply', { json: { ticket_id: other.id, message: 'Hi' } })).body.status).toBe(
      'answered',
    );
    // The customer's answer reopens the workflow's status too.
    const back = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: other.id, email: other.email, message: 'Thanks' },
    });
    expect(back.body.status).toBe('open');
  });

  it('lets the default autoclose close tickets left pending, and keeps an older autoclose on answered working', async () => {
    // A data directory from before reply_status: autoclose on answered only.
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-workflow-'));
    cleanup.push(() => removeStore(dataDir));
    await writeFile(
      join(dataDir, 'config.json'),
      JSON.stringify({ autoclose: { enabled: true, after_days: 3, statuses: ['answered'] } }),
    );
    const s = await server({ dataDir, files: true });
    expect((await s.call('GET', '/admin?r=autoclose')).body.autoclose.statuses).toEqual(['answered', 'pending']);
    const t = await createTicket(s);
    const waiting = await createTicket(s);
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Does it work now?' } });
    await s.call('POST', '/reply', { json: { ticket_id: waiting.id, message: 'Tell me more' } });
    later(2 * DAY);
    await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: waiting.id, email: waiting.email, message: 'More!' },
    });
    later(DAY + 60_000);
    await s.running.scheduler.tick();
    expect((await get(s, t.id)).status).toBe('closed');
    expect((await get(s, waiting.id)).status).toBe('open');

    // A fresh install's autoclose acts on pending (and answered) once switched on.
    const fresh = await server();
    await fresh.call('POST', '/admin?r=autoclose', { json: { enabled: true, after_days: 2 } });
    const u = await createTicket(fresh);
    await fresh.call('POST', '/reply', { json: { ticket_id: u.id, message: 'Fixed?' } });
    later(2 * DAY + 60_000);
    await fresh.running.scheduler.tick();
    expect((await get(fresh, u.id)).status).toBe('closed');
  });
});

describe('POST /v1/snooze', () => {
  it('takes a ticket out of needs_reply into snoozed until the time comes', async () => {
    const s = await server();
    const t = await createTicket(s);
    const other = await createTicket(s);
    expect((await counts(s)).needs_reply).toBe(2);
    const until = new Date(now.getTime() + 2 * 3_600_000).toISOString();
    const res = await s.call('POST', '/snooze', { json: { ticket_id: t.id, until } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.snoozed_until).toBe(until);
    expect(res.body.activity.at(-1)).toMatchObject({ type: 'snoozed', from: null, to: until });
    expect(await inView(s, 'needs_reply')).toEqual([other.id]);
    expect(await inView(s, 'snoozed')).toEqual([t.id]);
    expect(await counts(s)).toMatchObject({ needs_reply: 1, snoozed: 1, open: 2 });
    // The customer sees nothing of it.
    const mine = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, { key: s.keys.pk });
    expect(mine.text).not.toContain('snoozed');
    // With a status filter too (the store's other path).
    expect((await s.call('GET', '/list?view=needs_reply&status=open')).body.total).toBe(1);
    expect((await s.call('GET', '/list?view=snoozed&status=open')).body.total).toBe(1);

    // Time passes: back in needs_reply by itself, nothing written.
    later(2 * 3_600_000);
    expect((await inView(s, 'needs_reply')).sort()).toEqual([t.id, other.id].sort());
    expect(await inView(s, 'snoozed')).toEqual([]);
    expect(await counts(s)).toMatchObject({ needs_reply: 2, snoozed: 0 });
  });

  it('ends with the customer’s next message, or with until null', async () => {
    const s = await server();
    const t = await createTicket(s);
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Let me check with the warehouse' } });
    const until = new Date(now.getTime() + 3 * DAY).toISOString();
    await s.call('POST', '/snooze', { form: { ticket_id: t.id, until } });
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'Any news?' } });
    const woken = await get(s, t.id);
    expect(woken.snoozed_until).toBeUndefined();
    expect(woken.status).toBe('open');
    expect(await inView(s, 'needs_reply')).toEqual([t.id]);

    await s.call('POST', '/snooze', { json: { ticket_id: t.id, until } });
    expect(await inView(s, 'needs_reply')).toEqual([]);
    const off = await s.call('POST', '/snooze', { json: { ticket_id: t.id, until: null } });
    expect(off.body.snoozed_until).toBeUndefined();
    expect(await inView(s, 'needs_reply')).toEqual([t.id]);
  });

  it('refuses a time past, too far, or not a time, a closed ticket, and a public key', async () => {
    const s = await server();
    const t = await createTicket(s);
    const bad = async (until: unknown) => {
      const res = await s.call('POST', '/snooze', { json: { ticket_id: t.id, until } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'until' });
    };
    await bad(new Date(now.getTime() - 1000).toISOString());
    await bad(new Date(now.getTime() + 400 * DAY).toISOString());
    await bad('tomorrow');
    await bad(undefined);
    const pk = await s.call('POST', '/snooze', { key: s.keys.pk, json: { ticket_id: t.id, until: null } });
    expect(pk.status).toBe(403);
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'closed' } });
    const closed = await s.call('POST', '/snooze', {
      json: { ticket_id: t.id, until: new Date(now.getTime() + DAY).toISOString() },
    });
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe('ticket_closed');
    const missing = await s.call('POST', '/snooze', { json: { ticket_id: 'tkt_nothingLikeThis1234', until: null } });
    expect(missing.status).toBe(404);
  });
});
