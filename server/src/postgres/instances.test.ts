import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { startChild } from '../test-support/child-server.js';
import { eventually, startReceiver } from '../test-support/receiver.js';
import { createTicket, makeKeys, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { openSse } from '../test-support/sse.js';
import { createTestDatabase, dropTestDatabase } from '../test-support/test-database.js';

// Two servers on one PostgreSQL database, as two instances behind a load balancer would run. This
// file runs in the `postgres` test project only (vitest.config.ts).

let now = new Date('2026-11-23T10:00:00Z');
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});

/** Two instances on one database, with the same keys; the scheduler ticks only when a test says so. */
async function twoInstances(env: Record<string, string> = {}): Promise<[TestServer, TestServer]> {
  const base = { TICKETING_SCHEDULER_SECONDS: '0', ...env };
  const a = await startServer({ clock, env: base });
  cleanup.push(() => a.close());
  expect(a.databaseUrl).toBeDefined();
  const b = await startServer({ clock, env: base, keys: a.keys, databaseUrl: a.databaseUrl! });
  cleanup.push(() => b.close({ keepData: true })); // the database is a's, dropped when a closes
  return [a, b];
}

describe('several instances on one database', () => {
  it('both serve, and what one stores the other reads at once', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const onB = await b.call('GET', `/ticket?id=${t.id}`);
    expect(onB.status).toBe(200);
    expect(onB.body.subject).toBe(t.subject);
    expect((await b.call('POST', '/reply', { json: { ticket_id: t.id, message: 'from b' } })).status).toBe(201);
    const onA = await a.call('GET', `/ticket?id=${t.id}`);
    expect(onA.body.replies.map((r: { message: string }) => r.message)).toEqual(['from b']);
    expect((await a.call('GET', '/list')).body.total).toBe(1);
    expect((await b.call('GET', '/list')).body.total).toBe(1);
  });

  it('give distinct, consecutive ticket numbers when both create at the same time', async () => {
    const [a, b] = await twoInstances();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => createTicket(i % 2 ? b : a, { email: `c${i}@example.com` })),
    );
    const numbers = created.map((t) => t.number as number).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => 1001 + i));
    const found = await b.call('GET', '/ticket?number=1030');
    expect(created.find((t) => t.number === 1030)!.id).toBe(found.body.id);
  });

  it('lose no reply when both instances write to one ticket at the same time', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const messages = Array.from({ length: 20 }, (_, i) => `reply ${i}`);
    // All in flight at once, alternating between the instances: each change reads the ticket under
    // its row lock, so no write starts from a copy another has outdated.
    const answers = await Promise.all(
      messages.map((message, i) => (i % 2 ? b : a).call('POST', '/reply', { json: { ticket_id: t.id, message } })),
    );
    expect(answers.map((r) => r.status)).toEqual(messages.map(() => 201));
    const stored = (await a.call('GET', `/ticket?id=${t.id}`)).body;
    expect(stored.replies.map((r: { message: string }) => r.message).sort()).toEqual([...messages].sort());
  });

  it('file one ticket when the same Idempotency-Key reaches both instances at once', async () => {
    const [a, b] = await twoInstances();
    const input = ticketInput({ subject: 'sent twice' });
    const headers = { 'Idempotency-Key': 'order-4711' };
    const [ra, rb] = await Promise.all([
      a.call('POST', '/create', { key: a.keys.pk, json: input, headers }),
      b.call('POST', '/create', { key: b.keys.pk, json: input, headers }),
    ]);
    // One filed it; the other waited on the key's unique index and answered with that ticket.
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.body.id).toBe(rb.body.id);
    expect((await a.call('GET', '/list')).body.total).toBe(1);
  });

  it('see a configuration change made on the other instance', async () => {
    const [a, b] = await twoInstances();
    const res = await a.call('POST', '/admin?r=agents', { json: { name: 'Grace', email: 'grace@shop.example' } });
    expect(res.status).toBe(201);
    // Told by NOTIFY: b reloads its copy without a request asking for it.
    await eventually(
      () => b.running.deps.configStore.get().agents.some((g) => g.name === 'Grace'),
      1000,
      'b to see the agent',
    );
    expect((await b.call('GET', '/admin?r=agents')).body.agents.map((g: { name: string }) => g.name)).toContain(
      'Grace',
    );
  });

  it('search the knowledge base as the other instance last saved it', async () => {
    const [a, b] = await twoInstances();
    const search = async (q: string) =>
      (await b.call('GET', `/kb?q=${q}`, { key: b.keys.pk })).body.data.map((x: { title: string }) => x.title);
    const saved = await a.call('POST', '/admin?r=kb', { json: { title: 'Password reset', body: '', published: true } });
    await eventually(async () => (await search('pasword')).length > 0, 2000, 'b to find the article');
    expect(await search('pasword')).toEqual(['Password reset']); // b's first search built its index
    // Renamed on a: b's index was built for the old version, and the next search after the change
    // builds one for the new version.
    await a.call('POST', '/admin?r=kb', {
      json: { id: saved.body.article.id, title: 'Sign-in help', body: '', published: true },
    });
    await eventually(async () => (await search('sign')).length > 0, 2000, 'b to find the renamed article');
    expect(await search('pasword')).toEqual([]);
  });

  it('share the rate limits: a client spread over both gets no more than the limit', async () => {
    const [a, b] = await twoInstances({ TICKETING_RATE_LIMIT: 'on', TICKETING_RATE_LIMIT_PK_PER_MINUTE: '4' });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? b : a).call('GET', '/meta', { key: a.keys.pk })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    now = new Date(now.getTime() + 61_000); // the next window
    expect((await b.call('GET', '/meta', { key: a.keys.pk })).status).toBe(200);
  });

  it('share the failed-key throttle: guessing keys on both instances is stopped as on one', async () => {
    const [a, b] = await twoInstances({ TICKETING_KEY_FAILURES_PER_MINUTE: '3' });
    const wrong = `sk_live_${'x'.repeat(40)}`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await (i % 2 ? b : a).call('GET', '/list', { key: wrong })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    // The right key from that address waits too, on either instance: the throttle is per address.
    expect((await a.call('GET', '/list')).status).toBe(429);
    expect((await b.call('GET', '/list')).status).toBe(429);
  });

  it('run the scheduled work on one leader, and hand it over when the leader stops', async () => {
    const [a, b] = await twoInstances();
    const escalation = {
      escalation: [
        { id: 'late', after_minutes: 30, when: 'no_first_response', actions: [{ type: 'add_tag', value: 'late' }] },
      ],
    };
    expect((await a.call('POST', '/admin?r=escalation', { json: escalation })).status).toBe(200);
    const first = await createTicket(a);
    now = new Date(now.getTime() + 31 * 60_000);
    // Both tick at once; the lead is one advisory lock: one of them escalates, the other does not.
    await Promise.all([a.running.scheduler.tick(), b.running.scheduler.tick()]);
    const leaders = [await a.running.deps.leadership.lead(), await b.running.deps.leadership.lead()];
    expect(leaders.filter(Boolean)).toHaveLength(1);
    expect((await b.call('GET', `/ticket?id=${first.id}`)).body.tags).toEqual(['late']);
    const fired = async () =>
      (await a.call('GET', '/admin?r=audit')).body.audit.filter(
        (e: { action: string }) => e.action === 'escalation.add_tag',
      );
    expect(await fired()).toHaveLength(1);

    // The leader stops; the other takes the lead on its next tick and escalates what is new.
    const [leader, follower] = leaders[0] ? [a, b] : [b, a];
    const second = await createTicket(follower);
    now = new Date(now.getTime() + 31 * 60_000);
    await leader.running.close();
    await follower.running.scheduler.tick();
    expect(await follower.running.deps.leadership.lead()).toBe(true);
    expect((await follower.call('GET', `/ticket?id=${second.id}`)).body.tags).toEqual(['late']);
    expect(
      (await follower.call('GET', '/admin?r=audit')).body.audit.filter(
        (e: { action: string }) => e.action === 'escalation.add_tag',
      ),
    ).toHaveLength(2);
  });
  it('send each delivery once, however many instances poll the outbox', async () => {
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    const [a, b] = await twoInstances({ TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' });
    const settings = { url: `${hook.url}/hooks`, secret: 'whsec_0123456789abcdef', events: ['ticket.created'] };
    const modules = { modules: [{ name: 'webhooks', enabled: true, settings }] };
    expect((await a.call('POST', '/admin?r=modules', { json: modules })).status).toBe(200);
    await eventually(
      () => b.running.deps.configStore.get().modules.some((m) => m.name === 'webhooks'),
      1000,
      'b to see the module',
    );
    // Tickets on both, and both outboxes passing over the shared queue at the same time.
    const made = await Promise.all(Array.from({ length: 10 }, (_, i) => createTicket(i % 2 ? b : a)));
    await Promise.all([a.running.deps.outbox.process(), b.running.deps.outbox.process()]);
    await eventually(() => hook.received.length >= made.length, 5000, 'every delivery');
    await Promise.all([a.running.scheduler.tick(), b.running.scheduler.tick()]);
    const events = hook.received.map((r) => JSON.parse(r.body) as { id: string; data: { ticket: { id: string } } });
    expect(events).toHaveLength(made.length);
    expect(new Set(events.map((e) => e.id)).size).toBe(made.length);
    expect(events.map((e) => e.data.ticket.id).sort()).toEqual(made.map((t) => t.id).sort());
    expect(await a.running.deps.outbox.pending()).toEqual([]);
  });
  it('lose no acknowledged ticket when one instance is killed (SIGKILL) under load, and the other keeps serving', async () => {
    const keys = makeKeys();
    const db = await createTestDatabase();
    cleanup.push(() => dropTestDatabase(db.name));
    const start = async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ticketing-instance-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      const env = { TICKETING_DATA_DIR: dir, TICKETING_DATABASE_URL: db.url, TICKETING_RATE_LIMIT: 'off' };
      const child = await startChild({ ...env, TICKETING_KEYS: Object.values(keys).join(',') });
      cleanup.push(async () => {
        child.proc.kill('SIGKILL');
        await child.exited;
      });
      return child;
    };
    const [a, b] = [await start(), await start()];
    /** One create; the ticket's id when it was acknowledged (201), else undefined. */
    const create = (url: string) =>
      fetch(`${url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(ticketInput()),
      }).then(
        async (r) => (r.status === 201 ? ((await r.json()) as { id: string }).id : undefined),
        () => undefined,
      );
    const acknowledged: string[] = [];
    let killed = false;
    // Four clients keep creating on a until it dies, which it does after its tenth acknowledgement,
    // with requests in flight; two clients create on b throughout.
    const onA = async () => {
      while (!killed) {
        const id = await create(a.url);
        if (!id) break;
        acknowledged.push(id);
        if (acknowledged.length === 10 && !killed) {
          killed = true;
          a.proc.kill('SIGKILL');
        }
      }
    };
    const onB = async () => {
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push(await create(b.url));
      return ids;
    };
    const [, , , , fromB1, fromB2] = await Promise.all([onA(), onA(), onA(), onA(), onB(), onB()]);
    expect(killed).toBe(true);
    await a.exited;
    const fromB = [...fromB1!, ...fromB2!];
    expect(fromB.every(Boolean)).toBe(true); // b answered every request while a died
    for (const id of [...acknowledged, ...(fromB as string[])]) {
      const res = await fetch(`${b.url}/v1/ticket?id=${id}`, { headers: { Authorization: `Bearer ${keys.sk}` } });
      expect(res.status, id).toBe(200);
    }
  });
});

describe('an event stream on one instance', () => {
  it('ends when its agent signs out on the other, and when its key is revoked there', async () => {
    const [a, b] = await twoInstances({ TICKETING_EVENTS_RECHECK_SECONDS: '1' });
    const agent = await signedInAgent(a);
    const stream = await openSse(`${a.base}/events`, { Cookie: agent.cookie });
    cleanup.push(async () => stream.close());
    await stream.next((e) => e.comment === 'connected');
    const first = await createTicket(b);
    await stream.next((e) => e.data?.ticket?.id === first.id); // b's events reach a's stream
    // Signed out on b (the same session, sent there).
    const out = await fetch(`${b.base}/session`, {
      method: 'DELETE',
      headers: { Cookie: agent.cookie, 'X-CSRF-Token': agent.csrf },
    });
    expect(out.status).toBe(200);
    const ended = await Promise.race([
      stream.ended.then(() => true),
      new Promise((ok) => setTimeout(() => ok(false), 10_000)),
    ]);
    expect(ended, 'the stream on a is still open 10 s after the sign-out on b').toBe(true);
    const after = await createTicket(b, { name: 'After Person' });
    await new Promise((ok) => setTimeout(ok, 300));
    expect(JSON.stringify(stream.events)).not.toContain(after.id);

    // A key made and revoked on b: its stream on a ends too.
    const made = await b.call('POST', '/admin?r=keys', { json: { kind: 'secret', mode: 'live', label: 'script' } });
    expect(made.status, made.text).toBe(201);
    const byKey = await openSse(`${a.base}/events`, { Authorization: `Bearer ${made.body.key as string}` });
    cleanup.push(async () => byKey.close());
    await byKey.next((e) => e.comment === 'connected');
    expect((await b.call('DELETE', `/admin?r=keys&id=${made.body.api_key.id as string}`)).status).toBe(200);
    const keyEnded = await Promise.race([
      byKey.ended.then(() => true),
      new Promise((ok) => setTimeout(() => ok(false), 10_000)),
    ]);
    expect(keyEnded, 'the key’s stream on a is still open 10 s after the key was revoked on b').toBe(true);
  });
});
