import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// Agents' sessions over real HTTP: sign-in, the cookie, CSRF, roles, expiry and revocation.

const PASSWORD = 'correct horse battery';
let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let seq = 0;
/** A new agent made in /admin with a secret key. */
async function makeAgent(server: TestServer, over: Record<string, unknown> = {}) {
  seq++;
  const res = await server.call('POST', '/admin?r=agents', {
    json: { name: `Grace ${seq}`, email: `grace${seq}@shop.example`, password: PASSWORD, ...over },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.agent as { id: string; name: string; email: string; role: string };
}

interface Signed {
  status: number;
  body: any;
  cookie: string;
  setCookie: string[];
  headers: Headers;
  text: string;
}

/** POST /v1/session by fetch, as a browser would (no key). */
async function signIn(
  server: TestServer,
  email: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
): Promise<Signed> {
  const res = await server.call('POST', '/session', { key: null, json: { email, password }, headers });
  const setCookie = res.headers.getSetCookie();
  const cookie = setCookie[0]?.split(';')[0] ?? '';
  return { status: res.status, body: res.body, cookie, setCookie, headers: res.headers, text: res.text };
}

/** A call with the session cookie (and its CSRF token unless told otherwise). */
const withSession = (
  server: TestServer,
  session: { cookie: string; csrf?: string },
  method: string,
  path: string,
  opts: { json?: unknown; headers?: Record<string, string> } = {},
) =>
  server.call(method, path, {
    key: null,
    ...(opts.json !== undefined ? { json: opts.json } : {}),
    headers: {
      Cookie: session.cookie,
      ...(session.csrf !== undefined ? { 'X-CSRF-Token': session.csrf } : {}),
      ...opts.headers,
    },
  });

async function signedIn(server: TestServer, over: Record<string, unknown> = {}) {
  const agent = await makeAgent(server, over);
  const res = await signIn(server, agent.email);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { agent, cookie: res.cookie, csrf: res.body.csrf_token as string, setCookie: res.setCookie };
}

describe('signing in and out', () => {
  it('sets an HttpOnly, SameSite=Strict cookie on Path=/ (not Secure over http) and answers the agent', async () => {
    const agent = await makeAgent(s, { role: 'admin' });
    const res = await signIn(s, agent.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.agent).toEqual({
      id: agent.id,
      name: agent.name,
      email: agent.email,
      role: 'admin',
      two_factor_enabled: false,
      passkey_count: 0,
      must_change_password: false,
      signature: '',
      locale: null,
      available: true,
      density: 'comfortable',
      saved_views: [],
    });
    expect(res.body.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect(res.setCookie).toHaveLength(1);
    const attrs = res.setCookie[0]!.split('; ');
    expect(attrs[0]).toMatch(/^ticketing_session=[A-Za-z0-9]{43}$/);
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(attrs).not.toContain('Secure');
    expect(res.text).not.toContain(res.cookie.split('=')[1]); // the id is in the cookie only

    const me = await withSession(s, { cookie: res.cookie }, 'GET', '/session');
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body);
  });

  it('marks the cookie Secure (and __Host-) when the public URL is https', async () => {
    const secure = await startServer({ env: { TICKETING_PUBLIC_URL: 'https://support.shop.example' } });
    cleanup.push(() => secure.close());
    const agent = await makeAgent(secure);
    const res = await signIn(secure, agent.email);
    expect(res.status).toBe(200);
    const attrs = res.setCookie[0]!.split('; ');
    expect(attrs[0]).toMatch(/^__Host-ticketing_session=/);
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/', 'Secure']));
    expect((await withSession(secure, { cookie: res.cookie }, 'GET', '/session')).status).toBe(200);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const agent = await makeAgent(s);
    const wrong = await signIn(s, agent.email, 'not the password');
    const unknown = await signIn(s, 'nobody@shop.example', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.setCookie).toEqual([]);
    }
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const inactive = await makeAgent(s, { active: false });
    expect((await signIn(s, inactive.email)).body).toEqual(wrong.body);
  });

  it('signs out on the server: the cookie is dead afterwards, even if a copy of it is replayed', async () => {
    const session = await signedIn(s);
    const out = await withSession(s, session, 'DELETE', '/session');
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/^ticketing_session=; .*Max-Age=0/);
    const replay = await withSession(s, session, 'GET', '/list');
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('not_signed_in');
  });

  it('gives a new id on every sign-in and ends the session the browser brought (no fixation)', async () => {
    const agent = await makeAgent(s);
    const first = await signIn(s, agent.email);
    const second = await signIn(s, agent.email, PASSWORD, { Cookie: first.cookie });
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.body.csrf_token).not.toBe(first.body.csrf_token);
    expect((await withSession(s, { cookie: first.cookie }, 'GET', '/session')).body.error.code).toBe('not_signed_in');
    expect((await withSession(s, { cookie: second.cookie }, 'GET', '/session')).status).toBe(200);
    // An id an attacker planted in the browser is never adopted.
    const planted = 'ticketing_session=AttackerChosenValue0123456789abcdefghijklmnop';
    const third = await signIn(s, agent.email, PASSWORD, { Cookie: planted });
    expect(third.cookie).not.toBe(planted);
    expect((await withSession(s, { cookie: planted }, 'GET', '/session')).body.error.code).toBe('not_signed_in');
  });

  it('GET /v1/session without any credential is 401; with a secret key it is no session', async () => {
    expect((await s.call('GET', '/session', { key: null })).status).toBe(401);
    const res = await s.call('GET', '/session');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('session_required');
  });
});

describe('the session as a credential', () => {
  it('may do what a secret key may, as the agent: a reply carries the agent’s name', async () => {
    const session = await signedIn(s);
    const t = await createTicket(s);
    expect((await withSession(s, session, 'GET', `/ticket?id=${t.id}`)).status).toBe(200);
    const reply = await withSession(s, session, 'POST', '/reply', {
      json: { ticket_id: t.id, message: 'On its way.', author: 'Someone else' },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.replies.at(-1)).toMatchObject({
      from_customer: false,
      author: session.agent.name,
      agent_id: session.agent.id,
    });
    expect(reply.text).not.toContain(session.agent.email);
    // The customer sees the agent's name, never their email or id.
    const seen = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(t.email)}`, { key: s.keys.pk });
    expect(seen.body.replies.at(-1).author).toBe(session.agent.name);
    expect(seen.text).not.toContain(session.agent.id);
    expect(seen.text).not.toContain(session.agent.email);
    const audit = (await s.call('GET', '/admin?r=audit&limit=5')).body.audit;
    expect(audit.find((e: { action: string }) => e.action === 'ticket.replied').actor).toEqual({
      kind: 'agent',
      id: session.agent.id,
      name: session.agent.name,
    });
    // A secret key's reply names no agent.
    const byKey = await s.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'From a script', author: 'Bot' },
    });
    expect(byKey.body.replies.at(-1)).toMatchObject({ author: 'Bot' });
    expect(byKey.body.replies.at(-1)).not.toHaveProperty('agent_id');
  });

  it('refuses an unsafe request without the CSRF token, with a wrong one, or from another origin; GET needs none', async () => {
    const session = await signedIn(s);
    const t = await createTicket(s);
    const json = { ticket_id: t.id, priority: 'high' };
    const attempts = [
      { cookie: session.cookie },
      { cookie: session.cookie, csrf: 'f'.repeat(64) },
      { cookie: session.cookie, csrf: '' },
    ];
    for (const attempt of attempts) {
      const res = await withSession(s, attempt, 'POST', '/priority', { json });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_failed');
    }
    const crossSite = await withSession(s, session, 'POST', '/priority', {
      json,
      headers: { Origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe('csrf_failed');
    const bye = await withSession(s, { cookie: session.cookie }, 'DELETE', '/session');
    expect(bye.body.error.code).toBe('csrf_failed');
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.priority).toBe('normal'); // nothing changed
    // GET needs no token; the same request with the token and our own Origin goes through.
    expect((await withSession(s, { cookie: session.cookie }, 'GET', `/ticket?id=${t.id}`)).status).toBe(200);
    const ok = await withSession(s, session, 'POST', '/priority', { json, headers: { Origin: s.url } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.priority).toBe('high');
  });

  it('refuses a sign-in sent from another site’s page', async () => {
    const agent = await makeAgent(s);
    const res = await signIn(s, agent.email, PASSWORD, { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_failed');
    expect(res.setCookie).toEqual([]);
  });

  it('role agent gets 403 on /admin (reads and writes); role admin may use it', async () => {
    const plain = await signedIn(s, { role: 'agent' });
    for (const [method, path, json] of [
      ['GET', '/admin?r=agents', undefined],
      ['POST', '/admin?r=agents', { id: plain.agent.id, name: 'Me', email: plain.agent.email, role: 'admin' }],
      ['DELETE', `/admin?r=agents&id=${plain.agent.id}`, undefined],
      ['POST', '/settings', { autoreply: { enabled: true, message: 'hi' } }],
    ] as const) {
      const res = await withSession(s, plain, method, path, json ? { json } : {});
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('admin_required');
    }
    expect((await withSession(s, plain, 'GET', '/session')).body.agent.role).toBe('agent'); // not promoted
    const admin = await signedIn(s, { role: 'admin' });
    const list = await withSession(s, admin, 'GET', '/admin?r=agents');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('password_hash');
    const promoted = await withSession(s, admin, 'POST', '/admin?r=agents', {
      json: { id: plain.agent.id, name: plain.agent.name, email: plain.agent.email, role: 'admin' },
    });
    expect(promoted.status, promoted.text).toBe(200);
  });
});

describe('expiry', () => {
  it('ends a session idle for 12 hours, and any session 30 days after sign-in', async () => {
    let now = Date.parse('2026-11-23T08:00:00Z');
    const timed = await startServer({ clock: () => new Date(now) });
    cleanup.push(() => timed.close());
    const agent = await makeAgent(timed);
    const idle = await signIn(timed, agent.email);
    const busy = await signIn(timed, agent.email);
    const hour = 3_600_000;
    now += 11 * hour;
    expect((await withSession(timed, busy, 'GET', '/session')).status).toBe(200);
    now += 1.5 * hour; // idle has been unused 12.5 hours, busy 1.5
    expect((await withSession(timed, idle, 'GET', '/session')).body.error.code).toBe('not_signed_in');
    expect((await withSession(timed, busy, 'GET', '/session')).status).toBe(200);
    // Used every 11 hours, busy lives until 30 days after its sign-in.
    const end = Date.parse('2026-11-23T08:00:00Z') + 30 * 24 * hour;
    while (now + 11 * hour < end) {
      now += 11 * hour;
      expect((await withSession(timed, busy, 'GET', '/session')).status).toBe(200);
    }
    now = end + 1;
    expect((await withSession(timed, busy, 'GET', '/session')).body.error.code).toBe('not_signed_in');
  });

  it('honours shorter settings', async () => {
    let now = Date.parse('2026-11-23T08:00:00Z');
    const timed = await startServer({ clock: () => new Date(now), env: { TICKETING_SESSION_IDLE_HOURS: '0.5' } });
    cleanup.push(() => timed.close());
    const agent = await makeAgent(timed);
    const session = await signIn(timed, agent.email);
    now += 29 * 60_000;
    expect((await withSession(timed, session, 'GET', '/session')).status).toBe(200);
    now += 31 * 60_000;
    expect((await withSession(timed, session, 'GET', '/session')).status).toBe(401);
  });
});

describe('revocation', () => {
  it('deactivating an agent ends their sessions; reactivating does not bring them back', async () => {
    const session = await signedIn(s);
    const update = (active: boolean) =>
      s.call('POST', '/admin?r=agents', {
        json: { id: session.agent.id, name: session.agent.name, email: session.agent.email, active },
      });
    expect((await update(false)).status).toBe(200);
    expect((await withSession(s, session, 'GET', '/list')).body.error.code).toBe('not_signed_in');
    expect((await signIn(s, session.agent.email)).status).toBe(401);
    expect((await update(true)).status).toBe(200);
    expect((await withSession(s, session, 'GET', '/list')).body.error.code).toBe('not_signed_in');
    expect((await signIn(s, session.agent.email)).status).toBe(200);
  });

  it('deleting an agent ends their sessions', async () => {
    const session = await signedIn(s);
    expect((await s.call('DELETE', `/admin?r=agents&id=${session.agent.id}`)).status).toBe(200);
    expect((await withSession(s, session, 'GET', '/session')).body.error.code).toBe('not_signed_in');
  });

  it('a password set in /admin ends the agent’s sessions', async () => {
    const session = await signedIn(s);
    const res = await s.call('POST', '/admin?r=agents', {
      json: { id: session.agent.id, name: session.agent.name, email: session.agent.email, password: 'a new one 1234' },
    });
    expect(res.status).toBe(200);
    expect((await withSession(s, session, 'GET', '/session')).body.error.code).toBe('not_signed_in');
    expect((await signIn(s, session.agent.email, 'a new one 1234')).status).toBe(200);
  });

  it('changing one’s own password ends the other sessions and renews this one', async () => {
    const here = await signedIn(s);
    const other = await signIn(s, here.agent.email);
    const wrong = await withSession(s, here, 'POST', '/session/password', {
      json: { current_password: 'not it at all', new_password: 'brand new secret' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('current_password');
    const res = await withSession(s, here, 'POST', '/session/password', {
      json: { current_password: PASSWORD, new_password: 'brand new secret' },
    });
    expect(res.status, res.text).toBe(200);
    const renewed = { cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, csrf: res.body.csrf_token as string };
    expect(renewed.cookie).not.toBe(here.cookie);
    expect((await withSession(s, renewed, 'GET', '/session')).status).toBe(200);
    expect((await withSession(s, here, 'GET', '/session')).body.error.code).toBe('not_signed_in');
    expect((await withSession(s, { cookie: other.cookie }, 'GET', '/session')).body.error.code).toBe('not_signed_in');
    expect((await signIn(s, here.agent.email)).status).toBe(401);
    expect((await signIn(s, here.agent.email, 'brand new secret')).status).toBe(200);
  });
});

describe('sessions across a restart', () => {
  it('a session survives a restart; its id is stored only hashed', async () => {
    const first = await startServer();
    const agent = await makeAgent(first);
    const session = await signIn(first, agent.email);
    await first.close({ keepData: true });
    const again = await startServer({ dataDir: first.dataDir, keys: first.keys });
    try {
      expect((await withSession(again, session, 'GET', '/session')).body.agent.id).toBe(agent.id);
      const id = session.cookie.split('=')[1]!;
      const stored = await storedText(again);
      expect(stored).toContain(agent.id);
      expect(stored).not.toContain(id);
    } finally {
      await again.close();
      await first.close();
    }
  });
});

/** Everything the store holds of sessions, as text. */
async function storedText(server: TestServer): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  if (server.databaseUrl) {
    const postgres = (await import('postgres')).default;
    const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      return JSON.stringify(await sql`SELECT * FROM agent_sessions`);
    } finally {
      await sql.end();
    }
  }
  return readFile(join(server.dataDir, 'sessions.json'), 'utf8');
}
