import { afterEach, describe, expect, it } from 'vitest';
import { signIdentity } from '../identity/verify.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}
/**
 * A server closed when its test ends, for the tests that wait out a poll's seconds: they run side by
 * side (it.concurrent), so one's end must not close another's server as the shared clean-up would.
 */
async function ownServer(onTestFinished: (fn: () => Promise<void>) => void) {
  const s = await startServer();
  onTestFinished(() => s.close());
  return s;
}
const poll = (s: TestServer, params: [string, string][], headers: Record<string, string> = {}) =>
  s.call('GET', `/updates?${new URLSearchParams(params)}`, { key: s.keys.pk, headers });
const supportReply = (s: TestServer, id: string, message = 'Here is your answer.') =>
  s.call('POST', '/reply', { json: { ticket_id: id, message } });

describe('GET /updates', () => {
  it('counts support replies not yet seen, per ticket and in total, at once without known', async () => {
    const s = await server();
    const a = await createTicket(s);
    const b = await createTicket(s, { subject: 'Second' });
    await supportReply(s, a.id);
    await supportReply(s, a.id, 'And more');
    await supportReply(s, b.id);
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: b.id, email: b.email, message: 'Thanks' } });
    const res = await poll(s, [
      ['watch', `${a.id}:1:${a.email}`],
      ['watch', `${b.id}:0:${b.email.toUpperCase()}`],
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.unread).toBe(2);
    const byId = Object.fromEntries(res.body.data.map((t: { id: string }) => [t.id, t]));
    expect(byId[a.id]).toMatchObject({ unread: 1, support_replies: 2, status: 'pending' });
    expect(byId[b.id]).toMatchObject({ unread: 1, support_replies: 1 });
  });

  it('answers within 2 s of a support reply while it waits, and not before', async () => {
    const s = await server();
    const t = await createTicket(s);
    const started = Date.now();
    const waiting = poll(s, [
      ['watch', `${t.id}:0:${t.email}`],
      ['known', '0'],
      ['wait', '25'],
    ]);
    // The poll is held: nothing has happened yet.
    const early = await Promise.race([waiting.then(() => 'answered'), new Promise((r) => setTimeout(r, 300, 'held'))]);
    expect(early).toBe('held');
    const replied = Date.now();
    await supportReply(s, t.id);
    const res = await waiting;
    expect(res.body.unread).toBe(1);
    expect(Date.now() - replied).toBeLessThan(2000);
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it.concurrent('keeps waiting through the customer’s own reply (nothing new to read)', async ({ onTestFinished }) => {
    const s = await ownServer(onTestFinished);
    const t = await createTicket(s);
    const started = Date.now();
    const waiting = poll(s, [
      ['watch', `${t.id}:0:${t.email}`],
      ['known', '0'],
      ['wait', '2'],
    ]);
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'Any news?' } });
    const res = await waiting;
    expect(res.body.unread).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it.concurrent(
    'counts no internal note as a support reply: not unread, not last_reply_at, no early answer (issue 28)',
    async ({ onTestFinished }) => {
      const s = await ownServer(onTestFinished);
      const secret = 'identity-secret-for-the-notes-test!!';
      await s.call('POST', '/admin?r=identity', { json: { secret } });
      const identity = { 'X-Ticketing-Identity': `${signIdentity(secret, 'ada@example.com')}.ada%40example.com` };
      const t = await createTicket(s, { email: 'ada@example.com' });
      await supportReply(s, t.id);
      const mine = async () => (await s.call('GET', '/my-tickets', { key: s.keys.pk, headers: identity })).body;
      const before = await mine();
      expect(before.data[0]).toMatchObject({ id: t.id, support_replies: 1 });
      const watch: [string, string] = ['watch', `${t.id}:1:${t.email}`];
      // A poll that waits while nothing is unread: a note arriving meanwhile is no news to the customer.
      const started = Date.now();
      const waiting = poll(s, [watch, ['known', '0'], ['wait', '3']]);
      await new Promise((r) => setTimeout(r, 300));
      const noted = await s.call('POST', '/reply', {
        json: { ticket_id: t.id, message: 'Internal: refund approved by Grace', internal: true },
      });
      expect(noted.status).toBe(201);
      const res = await waiting;
      expect(res.body.unread).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(res.text).not.toContain('refund approved');
      // Read at once afterwards: still one support reply, the same last_reply_at, nothing unread.
      expect((await poll(s, [watch])).body).toMatchObject({ unread: 0, data: [{ support_replies: 1 }] });
      expect(await mine()).toEqual(before);
    },
  );

  it.concurrent(
    'leaves out a ticket whose email is wrong, and is not woken by it (no IDOR)',
    async ({ onTestFinished }) => {
      const s = await ownServer(onTestFinished);
      const mine = await createTicket(s, { email: 'ada@example.com' });
      const bobs = await createTicket(s, { email: 'bob@example.com' });
      await supportReply(s, bobs.id);
      const res = await poll(s, [
        ['watch', `${mine.id}:0:ada@example.com`],
        ['watch', `${bobs.id}:0:ada@example.com`],
      ]);
      expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([mine.id]);
      expect(res.body.unread).toBe(0);
      expect(res.text).not.toContain(bobs.id);
      // A reply to Bob's ticket does not answer Ada's poll early.
      const started = Date.now();
      const waiting = poll(s, [
        ['watch', `${mine.id}:0:ada@example.com`],
        ['watch', `${bobs.id}:0:ada@example.com`],
        ['known', '0'],
        ['wait', '2'],
      ]);
      await supportReply(s, bobs.id, 'Another one for Bob');
      expect((await waiting).body).toMatchObject({ unread: 0 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      // Test-mode keys do not see live tickets.
      const test = await s.call('GET', `/updates?watch=${mine.id}:0:ada@example.com`, { key: s.keys.pkTest });
      expect(test.body.data).toEqual([]);
    },
  );

  it('gives a verified customer every ticket of their email, with nothing unread for tickets this device never showed', async () => {
    const s = await server();
    const secret = 'identity-secret-for-the-updates-test!';
    await s.call('POST', '/admin?r=identity', { json: { secret } });
    const t = await createTicket(s, { email: 'ada@example.com' });
    await createTicket(s, { email: 'bob@example.com' });
    await supportReply(s, t.id);
    const identity = { 'X-Ticketing-Identity': `${signIdentity(secret, 'ada@example.com')}.ada%40example.com` };
    const res = await poll(s, [], identity);
    expect(res.body).toMatchObject({ unread: 0, data: [{ id: t.id, unread: 0, support_replies: 1 }] });
    expect(res.body.data).toHaveLength(1);
    // A reply to any of her tickets ends her wait, with nothing watched by id.
    const waiting = poll(
      s,
      [
        ['watch', `${t.id}:1:`],
        ['known', '0'],
      ],
      identity,
    );
    await supportReply(s, t.id, 'One more thing');
    expect((await waiting).body.unread).toBe(1);
    // A forged identity gets nothing.
    const forged = await poll(s, [], { 'X-Ticketing-Identity': `${'a'.repeat(64)}.ada%40example.com` });
    expect(forged.body).toEqual({ unread: 0, data: [] });
  });

  it('keeps what a verified customer has seen on the server: a new device counts only newer replies', async () => {
    const s = await server();
    const secret = 'identity-secret-for-the-seen-test!!!';
    await s.call('POST', '/admin?r=identity', { json: { secret } });
    const identity = { 'X-Ticketing-Identity': `${signIdentity(secret, 'ada@example.com')}.ada%40example.com` };
    const t = await createTicket(s, { email: 'ada@example.com' });
    await supportReply(s, t.id, 'First answer');
    await supportReply(s, t.id, 'Second answer');
    // Device A shows the thread: both replies are seen.
    const shown = await s.call('GET', `/ticket?id=${t.id}`, { key: s.keys.pk, headers: identity });
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('customer_seen'); // kept for the badge, never shown
    await supportReply(s, t.id, 'Third answer');
    // Device B has never shown the ticket (no watch entry of its own): one reply is new, not three.
    const b = await poll(s, [], identity);
    expect(b.body).toMatchObject({ unread: 1, data: [{ id: t.id, unread: 1, support_replies: 3 }] });
    // Device B shows it; device A, which remembers 2 seen, now has nothing unread either.
    await s.call('GET', `/ticket?id=${t.id}`, { key: s.keys.pk, headers: identity });
    expect((await poll(s, [['watch', `${t.id}:2:${t.email}`]], identity)).body.unread).toBe(0);
    expect((await poll(s, [], identity)).body.unread).toBe(0);
    // Support's own reads and an unverified customer's (email alone) record nothing for her.
    await supportReply(s, t.id, 'Fourth answer');
    await s.call('GET', `/ticket?id=${t.id}`);
    await s.call('GET', `/ticket?id=${t.id}&email=ada%40example.com`, { key: s.keys.pk });
    expect((await poll(s, [], identity)).body.unread).toBe(1);
    // The customer's view and its ETag are the same before and after a read that records what was seen.
    const before = await s.call('GET', `/ticket?id=${t.id}&email=ada%40example.com`, { key: s.keys.pk });
    const after = await s.call('GET', `/ticket?id=${t.id}`, { key: s.keys.pk, headers: identity });
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect((await poll(s, [], identity)).body.unread).toBe(0);
  });

  it('refuses malformed watch entries and too long waits', async () => {
    const s = await server();
    for (const q of ['watch=tkt_abc', 'watch=nope:1:a@b.c', 'wait=26', 'known=-1', 'watch=tkt_abc:x:a@b.c']) {
      const res = await s.call('GET', `/updates?${q}`, { key: s.keys.pk });
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('lets a waiting poll answer at once when the server stops', async () => {
    const s = await startServer();
    const t = await createTicket(s);
    const waiting = poll(s, [
      ['watch', `${t.id}:0:${t.email}`],
      ['known', '0'],
      ['wait', '25'],
    ]);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await s.close();
    expect((await waiting).body.unread).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
