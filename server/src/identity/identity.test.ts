import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { signIdentity } from './verify.js';

const SECRET = 'shop-identity-secret-0123456789abcdef-canary';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(identity: Record<string, unknown> = { secret: SECRET }) {
  const s = await startServer();
  cleanup.push(() => s.close());
  const res = await s.call('POST', '/admin?r=identity', { json: identity });
  expect(res.status).toBe(200);
  return s;
}
const header = (email: string, signature = signIdentity(SECRET, email)) => ({
  'X-Ticketing-Identity': `${signature}.${encodeURIComponent(email)}`,
});
const myTickets = (s: TestServer, headers: Record<string, string> = {}, key = s.keys.pk) =>
  s.call('GET', '/my-tickets', { key, headers });

describe('r=identity', () => {
  it('keeps its secret write-only: no read shows it, an omitted secret is kept, null removes it', async () => {
    const s = await server({ secret: SECRET, required: false });
    const read = await s.call('GET', '/admin?r=identity');
    expect(read.body).toEqual({ identity: { required: false, secret_set: true } });
    const all = await s.call('GET', '/admin?r=all');
    expect(all.text).not.toContain(SECRET);
    expect(all.body.identity).toEqual({ required: false, secret_set: true });
    for (const path of ['/widget-config', '/meta', '/me']) {
      expect((await s.call('GET', path, { key: s.keys.pk })).text).not.toContain(SECRET);
    }
    // A write without the secret keeps it: the signature still verifies.
    await s.call('POST', '/admin?r=identity', { json: { required: false } });
    expect((await s.call('GET', '/admin?r=identity')).body.identity.secret_set).toBe(true);
    await createTicket(s, { email: 'ada@example.com' });
    expect((await myTickets(s, header('ada@example.com'))).status).toBe(200);
    await s.call('POST', '/admin?r=identity', { json: { secret: null } });
    expect((await s.call('GET', '/admin?r=identity')).body.identity.secret_set).toBe(false);
    expect((await myTickets(s, header('ada@example.com'))).status).toBe(403);
    // Written on disk (or in the database) but never answered: the audit log holds no secret either.
    expect((await s.call('GET', '/admin?r=audit')).text).not.toContain(SECRET);
  });

  it('refuses a short secret, and required without a secret', async () => {
    const s = await server({});
    const short = await s.call('POST', '/admin?r=identity', { json: { secret: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('secret');
    const locked = await s.call('POST', '/admin?r=identity', { json: { required: true } });
    expect(locked.status).toBe(400);
    expect(locked.body.error.param).toBe('secret');
    for (const key of [s.keys.pk, s.keys.skTest]) {
      const res = await s.call('POST', '/admin?r=identity', { key, json: { secret: SECRET } });
      expect(res.status).toBe(403);
    }
    expect((await s.call('GET', '/admin?r=identity')).body.identity).toEqual({ required: false, secret_set: false });
  });
});

describe('GET /my-tickets', () => {
  it('lists every ticket of the verified email, whatever the letter case, and no one else’s', async () => {
    const s = await server();
    const a1 = await createTicket(s, { email: 'ada@example.com', subject: 'First' });
    const a2 = await createTicket(s, { email: 'ADA@example.com', subject: 'Second' });
    const b = await createTicket(s, { email: 'bob@example.com', subject: 'Bob’s' });
    await s.call('POST', '/reply', { json: { ticket_id: a1.id, message: 'We are on it.' } });
    const res = await myTickets(s, header('ada@example.com'));
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('ada@example.com');
    expect(res.body.data.map((t: { id: string }) => t.id).sort()).toEqual([a1.id, a2.id].sort());
    const first = res.body.data.find((t: { id: string }) => t.id === a1.id);
    expect(first).toMatchObject({ subject: 'First', support_replies: 1, status: 'pending' });
    expect(first.last_reply_at).toEqual(expect.any(String));
    expect(res.text).not.toContain(b.id);
    // Bob, verified, sees his ticket only: no IDOR across customers.
    const bob = await myTickets(s, header('bob@example.com'));
    expect(bob.body.data.map((t: { id: string }) => t.id)).toEqual([b.id]);
    // Test-mode tickets stay apart.
    expect((await myTickets(s, header('ada@example.com'), s.keys.pkTest)).body.data).toEqual([]);
  });

  it('is 403 identity_required for a forged, reused, malformed or missing signature', async () => {
    const s = await server();
    const ticket = await createTicket(s, { email: 'ada@example.com' });
    const forged = [
      header('ada@example.com', signIdentity('another-secret-of-32-characters-long!!', 'ada@example.com')),
      header('ada@example.com', signIdentity(SECRET, 'bob@example.com')), // Bob's signature, Ada's email
      header('ada@example.com', '0'.repeat(64)),
      header('ada@example.com', signIdentity(SECRET, 'ada@example.com').slice(0, 63)),
      { 'X-Ticketing-Identity': `${signIdentity(SECRET, 'ada@example.com')}` },
      { 'X-Ticketing-Identity': `${signIdentity(SECRET, 'ada@example.com')}.%E0%A4%A` },
      { 'X-Ticketing-Identity': 'ada@example.com' },
      {},
    ];
    for (const headers of forged) {
      const res = await myTickets(s, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe('identity_required');
      expect(res.text).not.toContain(ticket.id);
    }
    // A secret key has no customer identity: it lists with /list.
    expect((await myTickets(s, header('ada@example.com'), s.keys.sk)).status).toBe(403);
  });

  it('verifies addresses that need percent-encoding, signed over the address itself', async () => {
    const s = await server();
    const ticket = await createTicket(s, { email: 'o.brien+shop@example.com' });
    const res = await myTickets(s, header('o.brien+shop@example.com'));
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('o.brien+shop@example.com');
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([ticket.id]);
    const unicode = await myTickets(s, header('jürgen@example.com'));
    expect(unicode.body).toEqual({ email: 'jürgen@example.com', data: [] });
  });
});

describe('a verified customer on ticket calls', () => {
  it('may leave email out; an anonymous customer may not, and a forged identity proves nothing', async () => {
    const s = await server();
    const mine = await createTicket(s, { email: 'ada@example.com' });
    const other = await createTicket(s, { email: 'bob@example.com' });
    const read = await s.call('GET', `/ticket?id=${mine.id}`, { key: s.keys.pk, headers: header('ada@example.com') });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(mine.id);
    // Another customer's ticket by id: 404 as if it did not exist.
    const idor = await s.call('GET', `/ticket?id=${other.id}`, { key: s.keys.pk, headers: header('ada@example.com') });
    expect(idor.status).toBe(404);
    expect(idor.body.error.code).toBe('ticket_not_found');
    const reply = await s.call('POST', '/reply', {
      key: s.keys.pk,
      headers: header('ada@example.com'),
      json: { ticket_id: mine.id, message: 'From my phone' },
    });
    expect(reply.status).toBe(201);
    const forged = await s.call('GET', `/ticket?id=${mine.id}`, {
      key: s.keys.pk,
      headers: header('ada@example.com', '1'.repeat(64)),
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.param).toBe('email');
  });

  it('with required on: anonymous customers are refused, and a verified one touches only their own tickets', async () => {
    const s = await server();
    const before = await createTicket(s, { email: 'ada@example.com' }); // filed before the switch
    const bobs = await createTicket(s, { email: 'bob@example.com' });
    await s.call('POST', '/admin?r=identity', { json: { required: true } });
    // Anonymous: even with the right email.
    const anon = await s.call('GET', `/ticket?id=${before.id}&email=ada@example.com`, { key: s.keys.pk });
    expect(anon.status).toBe(403);
    expect(anon.body.error.code).toBe('identity_required');
    const create = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: { name: 'Ada', email: 'ada@example.com', subject: 'Hi', message: 'Hello' },
    });
    expect(create.body.error.code).toBe('identity_required');
    // Verified as Ada: knowing Bob's ticket id and email is not enough any more.
    const asAda = header('ada@example.com');
    const idor = await s.call('GET', `/ticket?id=${bobs.id}&email=bob@example.com`, { key: s.keys.pk, headers: asAda });
    expect(idor.status).toBe(404);
    const asBob = await s.call('POST', '/create', {
      key: s.keys.pk,
      headers: asAda,
      json: { name: 'Ada', email: 'bob@example.com', subject: 'Hi', message: 'Hello' },
    });
    expect(asBob.body.error.code).toBe('identity_required');
    const own = await s.call('POST', '/create', {
      key: s.keys.pk,
      headers: asAda,
      json: { name: 'Ada', email: 'Ada@Example.com', subject: 'Hi', message: 'Hello' },
    });
    expect(own.status).toBe(201);
    expect((await s.call('GET', `/ticket?id=${before.id}`, { key: s.keys.pk, headers: asAda })).status).toBe(200);
    // Support is not a customer: unaffected.
    expect((await s.call('GET', `/ticket?id=${bobs.id}`)).status).toBe(200);
  });

  it('lets the widget send the header across origins (preflight)', async () => {
    const s = await server();
    const res = await fetch(`${s.base}/my-tickets`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Headers': 'x-ticketing-identity' },
    });
    expect(res.headers.get('Access-Control-Allow-Headers')).toContain('X-Ticketing-Identity');
  });
});
