import { afterEach, describe, expect, it } from 'vitest';
import { randomToken } from '../model/index.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, makeKeys, startServer, type TestServer } from '../test-support/server.js';
import { openSse, type SseEvent } from '../test-support/sse.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(env: Record<string, string> = {}, keys = makeKeys()) {
  const s = await startServer({ env, keys });
  cleanup.push(() => s.close());
  return s;
}

async function listen(s: TestServer, key = s.keys.sk, headers: Record<string, string> = {}) {
  const c = await openSse(`${s.base}/events`, { Authorization: `Bearer ${key}`, ...headers });
  cleanup.push(() => c.close());
  expect(c.status).toBe(200);
  expect(c.headers.get('content-type')).toContain('text/event-stream');
  await c.next((e) => e.comment === 'connected'); // subscribed: what happens from now on arrives
  return c;
}

const about = (id: string, type?: string) => (e: SseEvent) =>
  e.data?.ticket?.id === id && (type === undefined || e.event === type);

describe('GET /v1/events', () => {
  it('delivers a customer’s reply to staff within a second, with the list row and an id', async () => {
    const s = await server();
    const t = await createTicket(s);
    const c = await listen(s);
    const sent = Date.now();
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'Hello?' } });
    const e = await c.next(about(t.id, 'ticket.replied'), 1000);
    expect(Date.now() - sent).toBeLessThan(1000);
    expect(e.id).toMatch(/^\S+$/);
    expect(e.data.ticket).toMatchObject({
      id: t.id,
      waiting_on: 'us',
      reply_count: 1,
      last_message: { from_customer: true, preview: 'Hello?' },
    });
    expect(e.data.by).toEqual({ kind: 'customer' });
    // Creation and other changes too.
    const other = await createTicket(s, { subject: 'Second' });
    expect((await c.next(about(other.id, 'ticket.created'))).data.ticket.subject).toBe('Second');
    await s.call('POST', '/priority', { json: { ticket_id: other.id, priority: 'high' } });
    const changed = await c.next(about(other.id, 'ticket.changed'));
    expect(changed.data.ticket.priority).toBe('high');
    expect(changed.data.by).toEqual({ kind: 'key' });
    await s.call('DELETE', `/delete?ticket_id=${other.id}`);
    await c.next(about(other.id, 'ticket.deleted'));
  });

  it('resumes after Last-Event-ID with what was missed, in order, and says reset when it cannot', async () => {
    const s = await server();
    const t = await createTicket(s);
    const first = await listen(s);
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'pending' } });
    const seen = await first.next(about(t.id, 'ticket.changed'));
    first.close();
    // While away: two changes.
    await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'urgent' } });
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'note for later', internal: true } });
    const again = await listen(s, s.keys.sk, { 'Last-Event-ID': seen.id! });
    await again.next((e) => e.event === 'ticket.note_added');
    const missed = again.events.filter((e) => e.id);
    expect(missed.map((e) => e.event)).toEqual(['ticket.changed', 'ticket.note_added']);
    expect(missed[0]!.data.ticket.priority).toBe('urgent');
    expect(missed[1]!.data.ticket.last_message).toMatchObject({ internal: true });
    // The query parameter works the same (for clients that cannot set the header).
    const byQuery = await openSse(`${s.base}/events?last_event_id=${encodeURIComponent(missed[0]!.id!)}`, {
      Authorization: `Bearer ${s.keys.sk}`,
    });
    cleanup.push(() => byQuery.close());
    expect((await byQuery.next((e) => Boolean(e.id))).event).toBe('ticket.note_added');
    // An id that is not kept (another server's, a restart's): reset, so the client reloads.
    const lost = await listen(s, s.keys.sk, { 'Last-Event-ID': 'gone-42' });
    expect(lost.events.some((e) => e.event === 'reset')).toBe(true);
  });

  it('is for staff only: a public key gets 403 and no stream, no key 401', async () => {
    const s = await server();
    const pk = await openSse(`${s.base}/events`, { Authorization: `Bearer ${s.keys.pk}` });
    expect(pk.status).toBe(403);
    const none = await openSse(`${s.base}/events`);
    expect(none.status).toBe(401);
    const typing = await s.call('POST', '/typing', { key: s.keys.pk, json: { ticket_id: 'tkt_x' } });
    expect(typing.status).toBe(403);
    expect(typing.body.error.code).toBe('secret_key_required');
  });

  it('keeps modes apart: a test key hears test tickets only', async () => {
    const s = await server();
    const live = await listen(s, s.keys.sk);
    const test = await listen(s, s.keys.skTest);
    const a = await createTicket(s, {}, s.keys.pk);
    await live.next(about(a.id, 'ticket.created'));
    const b = await createTicket(s, {}, s.keys.pkTest);
    await test.next(about(b.id, 'ticket.created'));
    expect(test.events.some(about(a.id))).toBe(false);
    // Events arrive in order: once a later live ticket is heard, the test one would have come before it.
    const c = await createTicket(s, {}, s.keys.pk);
    await live.next(about(c.id, 'ticket.created'));
    expect(live.events.some(about(b.id))).toBe(false);
  });

  it('sends heartbeats while someone listens, and forgets a client that left', async () => {
    const s = await server({ TICKETING_EVENTS_HEARTBEAT_SECONDS: '0.1' });
    const { live } = s.running.deps;
    expect(live.beating).toBe(false); // nobody listens: no timer
    const c = await listen(s);
    await c.next((e) => e.comment === 'ping', 2000);
    expect(live.listening).toBe(1);
    c.close();
    await eventually(() => live.listening === 0, 2000, 'the server to notice the client left');
    expect(live.beating).toBe(false);
  });

  it('ends open streams when the server stops, without holding the stop up', async () => {
    const s = await startServer();
    const c = await openSse(`${s.base}/events`, { Authorization: `Bearer ${s.keys.sk}` });
    await c.next((e) => e.comment === 'connected');
    const started = Date.now();
    await s.close();
    await c.ended;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('GET /v1/events and the scheduler', () => {
  it('tells of an escalation’s and an autoclose’s changes, which the activity names as the system’s', async () => {
    let now = new Date('2026-11-23T10:00:00Z');
    const s = await startServer({ clock: () => now, env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close());
    await s.call('POST', '/admin?r=escalation', {
      json: {
        escalation: [
          { id: 'late', after_minutes: 30, when: 'no_first_response', actions: [{ type: 'add_tag', value: 'late' }] },
        ],
      },
    });
    await s.call('POST', '/admin?r=autoclose', { json: { enabled: true, after_days: 3, statuses: ['answered'] } });
    const late = await createTicket(s);
    const idle = await createTicket(s);
    await s.call('POST', '/status', { json: { ticket_id: idle.id, status: 'answered' } });
    const c = await listen(s);
    now = new Date(now.getTime() + 31 * 60_000);
    await s.running.scheduler.tick();
    const escalated = await c.next(about(late.id, 'ticket.changed'));
    expect(escalated.data).toMatchObject({ ticket: { tags: ['late'] }, by: { kind: 'system' } });
    now = new Date(now.getTime() + 4 * 86_400_000);
    await s.running.scheduler.tick();
    const closed = await c.next((e) => about(idle.id, 'ticket.changed')(e) && e.data.ticket.status === 'closed');
    expect(closed.data.by).toEqual({ kind: 'system' });
    const activity = (await s.call('GET', `/ticket?id=${idle.id}`)).body.activity;
    expect(activity.at(-1)).toMatchObject({
      type: 'status',
      from: 'answered',
      to: 'closed',
      actor: { kind: 'system' },
    });
  });
});

describe('POST /v1/typing', () => {
  it('tells the other listeners who is writing, not the writer', async () => {
    const keys = makeKeys();
    const colleague = `sk_live_${randomToken(28)}`;
    const s = await server({ TICKETING_KEYS: [...Object.values(keys), colleague].join(',') }, keys);
    const t = await createTicket(s);
    const mine = await listen(s, s.keys.sk);
    const theirs = await listen(s, colleague);
    const res = await s.call('POST', '/typing', { json: { ticket_id: t.id } });
    expect(res.status).toBe(204);
    const e = await theirs.next((x) => x.event === 'typing');
    expect(e.data.ticket_id).toBe(t.id);
    expect(e.data.agent.name).toBe(s.keys.sk.slice(0, 12));
    expect(e.id).toBeUndefined(); // not kept for resuming: it is stale in seconds
    // The writer's own stream: a later event arrives, and no typing came before it.
    await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'low' } });
    await mine.next(about(t.id, 'ticket.changed'));
    expect(mine.events.some((x) => x.event === 'typing')).toBe(false);
    const unknown = await s.call('POST', '/typing', { json: { ticket_id: 'tkt_doesnotexist000000' } });
    expect(unknown.status).toBe(404);
  });
});
