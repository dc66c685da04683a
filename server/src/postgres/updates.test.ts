import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// The customer's long poll (GET /updates) woken by changes made on another instance on the same
// database: they arrive through the live bus (LISTEN/NOTIFY). `postgres` project only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function twoInstances(): Promise<[TestServer, TestServer]> {
  const a = await startServer();
  cleanup.push(() => a.close());
  const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
  cleanup.push(() => b.close({ keepData: true })); // the database is a's, dropped when a closes
  return [a, b];
}

const poll = (s: TestServer, params: [string, string][], headers: Record<string, string> = {}) =>
  s.call('GET', `/updates?${new URLSearchParams(params)}`, { key: s.keys.pk, headers });

/** Starts a poll on `s`; resolves once it waits there (held, not answered), with its answer to come. */
async function waitingPoll(s: TestServer, params: [string, string][], headers: Record<string, string> = {}) {
  const before = s.running.deps.watchers.size;
  const answer = poll(s, params, headers);
  await eventually(() => s.running.deps.watchers.size > before, 5000, 'the poll to wait');
  // Registered before it reads: held a moment longer, its first read is done and found nothing new.
  const early = await Promise.race([answer.then(() => 'answered'), new Promise((r) => setTimeout(r, 300, 'held'))]);
  expect(early).toBe('held');
  return { answer }; // wrapped: an async function's returned promise would be awaited here
}

describe('GET /updates across instances', () => {
  it('answers a poll waiting on one instance within 2 s of a support reply posted on the other', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const { answer: waiting } = await waitingPoll(a, [
      ['watch', `${t.id}:0:${t.email}`],
      ['known', '0'],
      ['wait', '25'],
    ]);
    const replied = Date.now();
    expect((await b.call('POST', '/reply', { json: { ticket_id: t.id, message: 'From b' } })).status).toBe(201);
    const res = await waiting;
    expect(Date.now() - replied).toBeLessThan(2000);
    expect(res.body).toMatchObject({ unread: 1, data: [{ id: t.id, unread: 1, support_replies: 1 }] });
  });

  it('keeps waiting through the customer’s own reply made on the other instance', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const started = Date.now();
    const { answer: waiting } = await waitingPoll(a, [
      ['watch', `${t.id}:0:${t.email}`],
      ['known', '0'],
      ['wait', '2'],
    ]);
    const own = { ticket_id: t.id, email: t.email, message: 'Any news?' };
    expect((await b.call('POST', '/reply', { key: b.keys.pk, json: own })).status).toBe(201);
    expect((await waiting).body.unread).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('hands the polls only the other instances’ events from the bus (their own woke them in-process)', async () => {
    const [a, b] = await twoInstances();
    const onA: string[] = [];
    const onB: string[] = [];
    a.running.deps.live.fromElsewhere((m) => onA.push(`${m.type} ${m.ticket_id}`));
    b.running.deps.live.fromElsewhere((m) => onB.push(`${m.type} ${m.ticket_id}`));
    const fromA = await createTicket(a);
    await a.call('POST', '/reply', { json: { ticket_id: fromA.id, message: 'Written on a' } });
    // Notifications arrive in commit order: once b's ticket has reached a, a's own would have too.
    const fromB = await createTicket(b);
    await eventually(() => onA.includes(`ticket.created ${fromB.id}`), 5000, 'b’s ticket on a');
    expect(onA).toEqual([`ticket.created ${fromB.id}`]);
    // The reply also set the workflow's reply status (pending): a ticket.changed after it.
    await eventually(() => onB.includes(`ticket.changed ${fromA.id}`), 5000, 'a’s reply on b');
    expect(onB).toEqual([`ticket.created ${fromA.id}`, `ticket.replied ${fromA.id}`, `ticket.changed ${fromA.id}`]);
  });
});
