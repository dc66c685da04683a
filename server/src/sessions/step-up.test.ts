import { Secret, TOTP } from 'otpauth';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/cli.js';
import { authenticator } from '../test-support/passkey-authenticator.js';
import { startServer, type Answer, type TestServer } from '../test-support/server.js';

// Issue 28: what a stolen session must not be able to do for good. Adding a passkey, turning
// two-factor off and changing an agent's email or password need a recent check of the password or a
// second factor (POST /v1/session/verify); a reset ends passkeys; passkeys need user verification and
// belong to one agent. All over real HTTP, with passkeys made here as an authenticator makes them.

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let now = Date.parse('2026-11-23T08:00:00Z');
async function setUp() {
  now = Date.parse('2026-11-23T08:00:00Z');
  const s = await startServer({ clock: () => new Date(now) });
  cleanup.push(() => s.close());
  const made = await s.call('POST', '/admin?r=agents', {
    json: { name: 'Grace', email: 'grace@shop.example', password: PASSWORD, role: 'admin' },
  });
  expect(made.status, made.text).toBe(201);
  return { s, agentId: made.body.agent.id as string, origin: new URL(s.url).origin, rpID: new URL(s.url).hostname };
}

type Session = { Cookie: string; 'X-CSRF-Token': string };
const sessionOf = (res: Answer): Session => ({
  Cookie: res.headers.getSetCookie()[0]!.split(';')[0]!,
  'X-CSRF-Token': res.body.csrf_token as string,
});
async function signIn(s: TestServer, email = 'grace@shop.example', password = PASSWORD, code?: string) {
  const res = await s.call('POST', '/session', { key: null, json: { email, password, ...(code ? { code } : {}) } });
  expect(res.status, res.text).toBe(200);
  return sessionOf(res);
}
const as = (s: TestServer, session: Session) => ({
  call: (method: string, path: string, json?: unknown) =>
    s.call(method, path, { key: null, headers: session, ...(json === undefined ? {} : { json }) }),
});
const codeAt = (secret: string, at: number) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at });

/** Adds a passkey of `key` through both steps; answers the second step's answer. */
async function addPasskey(s: TestServer, session: Session, key: ReturnType<typeof authenticator>, origin: string) {
  const opts = await as(s, session).call('POST', '/session/passkeys/options');
  if (opts.status !== 200) return opts;
  return as(s, session).call('POST', '/session/passkeys', {
    name: 'Laptop',
    response: key.attest(opts.body.challenge as string, origin),
  });
}
const passkeySignIn = async (s: TestServer, key: ReturnType<typeof authenticator>, origin: string, counter = 1) => {
  const opts = await s.call('POST', '/session/passkey/options', { key: null });
  return s.call('POST', '/session/passkey', {
    key: null,
    json: { response: key.assert(opts.body.challenge as string, origin, counter) },
  });
};

describe('a session that has not checked the password lately', () => {
  it('cannot add a passkey, turn two-factor off or change an email until it verifies; then it can', async () => {
    const { s, agentId, origin, rpID } = await setUp();
    // Two-factor on, enrolled right after signing in (that is recent).
    let session = await signIn(s);
    const start = await as(s, session).call('POST', '/session/totp');
    const secret = start.body.secret as string;
    expect((await as(s, session).call('POST', '/session/totp/confirm', { code: codeAt(secret, now) })).status).toBe(
      200,
    );

    now += 11 * MINUTE; // the cookie, say, copied from an unlocked computer: the session is no longer fresh
    const key = authenticator(rpID);
    const refused = [
      await as(s, session).call('POST', '/session/passkeys/options'),
      await as(s, session).call('POST', '/session/passkeys', { response: key.attest('x', origin) }),
      await as(s, session).call('DELETE', '/session/totp', { code: codeAt(secret, now) }),
      await as(s, session).call('POST', '/admin?r=agents', {
        id: agentId,
        name: 'Grace',
        email: 'thief@evil.example',
        role: 'admin',
      }),
      await as(s, session).call('POST', '/admin?r=agents', {
        id: agentId,
        name: 'Grace',
        email: 'grace@shop.example',
        role: 'admin',
        password: 'a password the thief knows',
      }),
    ];
    for (const res of refused) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('verification_required');
    }
    const stored = s.running.deps.configStore.get().agents.find((a) => a.id === agentId)!;
    expect(stored).toMatchObject({ email: 'grace@shop.example', passkeys: [] });
    expect(stored.two_factor_secret).toBe(secret);
    // Other changes of the agent (the name) are not held up, and nor is a secret key.
    const renamed = await as(s, session).call('POST', '/admin?r=agents', {
      id: agentId,
      name: 'Grace H.',
      email: 'grace@shop.example',
      role: 'admin',
    });
    expect(renamed.status, renamed.text).toBe(200);

    // The agent confirms with the password: a new session (the old cookie ends with it).
    const verified = await as(s, session).call('POST', '/session/verify', { password: PASSWORD });
    expect(verified.status, verified.text).toBe(200);
    const old = session;
    session = sessionOf(verified);
    expect(session.Cookie).not.toBe(old.Cookie);
    expect((await as(s, old).call('GET', '/session')).body.error.code).toBe('not_signed_in');

    const added = await addPasskey(s, session, key, origin);
    expect(added.status, added.text).toBe(200);
    const changed = await as(s, session).call('POST', '/admin?r=agents', {
      id: agentId,
      name: 'Grace H.',
      email: 'grace.hopper@shop.example',
      role: 'admin',
    });
    expect(changed.status, changed.text).toBe(200);
    now += 30_000; // the next TOTP step: a code is good once
    const off = await as(s, session).call('DELETE', '/session/totp', { code: codeAt(secret, now) });
    expect(off.status, off.text).toBe(200);

    // Ten minutes on it is stale again.
    now += 10 * MINUTE;
    expect((await as(s, session).call('POST', '/session/passkeys/options')).body.error.code).toBe(
      'verification_required',
    );
    // A fresh sign-in counts as a check.
    const fresh = await signIn(s, 'grace.hopper@shop.example');
    expect((await as(s, fresh).call('POST', '/session/passkeys/options')).status).toBe(200);
  });

  it('verifies with a two-factor code too; wrong passwords count toward the sign-in lockout', async () => {
    const { s } = await setUp();
    const first = await signIn(s);
    const secret = (await as(s, first).call('POST', '/session/totp')).body.secret as string;
    await as(s, first).call('POST', '/session/totp/confirm', { code: codeAt(secret, now) });
    now += 30_000;
    let session = await signIn(s, 'grace@shop.example', PASSWORD, codeAt(secret, now));
    now += 11 * MINUTE;

    const byCode = await as(s, session).call('POST', '/session/verify', { code: codeAt(secret, now) });
    expect(byCode.status, byCode.text).toBe(200);
    session = sessionOf(byCode);
    expect((await as(s, session).call('POST', '/session/passkeys/options')).status).toBe(200);

    const none = await as(s, session).call('POST', '/session/verify', {});
    expect([none.status, none.body.error.param]).toEqual([400, 'password']);
    for (let i = 0; i < 5; i++) {
      const wrong = await as(s, session).call('POST', '/session/verify', { password: `guess ${i}` });
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.body.error).toMatchObject({ code: 'validation_failed', param: 'password' });
    }
    const locked = await as(s, session).call('POST', '/session/verify', { password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    // The same count as signing in: the lockout holds there too.
    const signInNow = await s.call('POST', '/session', {
      key: null,
      json: { email: 'grace@shop.example', password: PASSWORD, code: codeAt(secret, now + 30_000) },
    });
    expect(signInNow.status).toBe(429);
  });
});

describe('passkeys', () => {
  it('a reset by an admin, or by the CLI, ends the agent’s passkeys: the old one signs in no more', async () => {
    const { s, origin, rpID, agentId } = await setUp();
    const key = authenticator(rpID);
    expect((await addPasskey(s, await signIn(s), key, origin)).status).toBe(200);
    const before = await passkeySignIn(s, key, origin, 1);
    expect(before.status, before.text).toBe(200);

    // The admin resets the password (a secret key here): the answer shows the passkeys gone.
    const reset = await s.call('POST', '/admin?r=agents', {
      json: { id: agentId, name: 'Grace', email: 'grace@shop.example', role: 'admin', one_time_password: true },
    });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.agent.passkey_count).toBe(0);
    const after = await passkeySignIn(s, key, origin, 2);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_passkey');

    // Again with a new passkey, and `ticketing agents reset-password`, which says what it removed.
    const password = reset.body.password as string;
    const changed = await s.call('POST', '/session/password', {
      key: null,
      headers: await signIn(s, 'grace@shop.example', password),
      json: { current_password: password, new_password: PASSWORD },
    });
    expect(changed.status, changed.text).toBe(200);
    const second = authenticator(rpID);
    expect((await addPasskey(s, sessionOf(changed), second, origin)).status).toBe(200);
    const env = { TICKETING_DATA_DIR: s.dataDir, ...(s.databaseUrl ? { TICKETING_DATABASE_URL: s.databaseUrl } : {}) };
    const cli = await runCli(['agents', 'reset-password', 'grace@shop.example'], env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain('passkeys were removed (1)');
    expect((await passkeySignIn(s, second, origin, 1)).body.error.code).toBe('invalid_passkey');
  });

  it('need user verification: one that only checks presence is neither added nor signs in', async () => {
    const { s, origin, rpID, agentId } = await setUp();
    const session = await signIn(s);
    const opts = await as(s, session).call('POST', '/session/passkeys/options');
    expect(opts.body.authenticatorSelection).toMatchObject({ userVerification: 'required' });
    const touchOnly = authenticator(rpID, { uv: false });
    const added = await addPasskey(s, session, touchOnly, origin);
    expect(added.status).toBe(400);
    expect(added.body.error.param).toBe('response');

    // One stored from before (when verification was only preferred) signs in no more without it.
    await s.running.deps.configStore.update((d) => {
      for (const a of d.agents)
        if (a.id === agentId)
          a.passkeys.push({
            id: touchOnly.id,
            public_key: touchOnly.publicKey,
            counter: 0,
            name: 'Old key',
            transports: [],
            created_at: '2026-11-20T08:00:00.000Z',
          });
    });
    const signOpts = await s.call('POST', '/session/passkey/options', { key: null });
    expect(signOpts.body.userVerification).toBe('required');
    const refused = await passkeySignIn(s, touchOnly, origin, 1);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_passkey');
    // The same key with verification does sign in: the flag is what was refused.
    const verified = authenticator(rpID, { id: touchOnly.id });
    await s.running.deps.configStore.update((d) => {
      for (const a of d.agents)
        if (a.id === agentId) for (const p of a.passkeys) if (p.id === touchOnly.id) p.public_key = verified.publicKey;
    });
    expect((await passkeySignIn(s, verified, origin, 2)).status).toBe(200);
  });

  it('an id belongs to one agent: a second agent cannot register it and shadow the first', async () => {
    const { s, origin, rpID, agentId } = await setUp();
    const grace = authenticator(rpID);
    expect((await addPasskey(s, await signIn(s), grace, origin)).status).toBe(200);
    await s.call('POST', '/admin?r=agents', {
      json: { name: 'Mallory', email: 'mallory@shop.example', password: PASSWORD },
    });
    // Mallory's own key, presented under Grace's passkey id.
    const copy = authenticator(rpID, { id: grace.id });
    const taken = await addPasskey(s, await signIn(s, 'mallory@shop.example'), copy, origin);
    expect(taken.status, taken.text).toBe(409);
    expect(taken.body.error.code).toBe('passkey_in_use');
    const signedIn = await passkeySignIn(s, grace, origin, 1);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.agent.id).toBe(agentId);
    expect((await passkeySignIn(s, copy, origin, 2)).status).toBe(401);
  });
});
