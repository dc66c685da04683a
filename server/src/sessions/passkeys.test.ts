import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticator } from '../test-support/passkey-authenticator.js';
import { startServer, type TestServer } from '../test-support/server.js';

// Passkey sign-in over real HTTP, with assertions made here as an authenticator makes them: a P-256 key
// pair, authenticator data and an ECDSA signature over it and the client data. (Adding a passkey through
// the browser is tested in console/tests/passkeys.test.ts with Chromium's virtual authenticator.)

const PASSWORD = 'correct horse battery';
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setUp() {
  const s = await startServer();
  cleanup.push(() => s.close());
  const res = await s.call('POST', '/admin?r=agents', {
    json: { name: 'Grace', email: 'grace@shop.example', password: PASSWORD },
  });
  expect(res.status).toBe(201);
  const agentId = res.body.agent.id as string;
  const origin = new URL(s.url).origin;
  const key = authenticator(new URL(s.url).hostname);
  // The passkey as registration stores it (registration itself needs a browser: see above).
  await s.running.deps.configStore.update((d) => {
    for (const a of d.agents)
      if (a.id === agentId)
        a.passkeys.push({
          id: key.id,
          public_key: key.publicKey,
          counter: 3,
          name: 'Laptop',
          transports: ['internal'],
          created_at: '2026-11-23T08:00:00.000Z',
        });
  });
  return { s, agentId, origin, key };
}

const options = async (s: TestServer) => {
  const res = await s.call('POST', '/session/passkey/options', { key: null });
  expect(res.status, res.text).toBe(200);
  return res.body as { challenge: string; rpId: string; userVerification: string; allowCredentials?: unknown[] };
};
const counterOf = (s: TestServer, agentId: string) =>
  s.running.deps.configStore.get().agents.find((a) => a.id === agentId)!.passkeys[0]!.counter;
const signIn = (s: TestServer, response: unknown) =>
  s.call('POST', '/session/passkey', { key: null, json: { response } });

describe('signing in with a passkey', () => {
  it('signs in with a signed challenge alone, and a replay of the same answer is refused', async () => {
    const { s, origin, key, agentId } = await setUp();
    const opts = await options(s);
    expect(opts).toMatchObject({ rpId: new URL(s.url).hostname, userVerification: 'required' });
    // No email: the browser offers whichever passkey it has (discoverable credentials).
    expect(opts.allowCredentials ?? []).toEqual([]);
    const answer = key.assert(opts.challenge, origin, 4);
    const ok = await signIn(s, answer);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.agent).toMatchObject({ id: agentId, email: 'grace@shop.example', passkey_count: 1 });
    const cookie = ok.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await s.call('GET', '/session', { key: null, headers: { Cookie: cookie } })).status).toBe(200);
    expect(counterOf(s, agentId)).toBe(4);

    // The very same answer again: its challenge was used.
    const replay = await signIn(s, answer);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('invalid_passkey');
    // A new signature over the used challenge, with a higher counter: still refused.
    expect((await signIn(s, key.assert(opts.challenge, origin, 9))).body.error.code).toBe('invalid_passkey');
  });

  it('refuses a challenge it never handed out, another site, a forged signature and a counter that went back', async () => {
    const { s, origin, key, agentId } = await setUp();
    const invented = randomBytes(32).toString('base64url');
    expect((await signIn(s, key.assert(invented, origin, 4))).body.error.code).toBe('invalid_passkey');
    expect((await signIn(s, key.assert((await options(s)).challenge, 'https://evil.example', 4))).status).toBe(401);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect((await signIn(s, key.assert((await options(s)).challenge, origin, 4, other))).status).toBe(401);
    // The stored counter is 3: an authenticator answering 2 is a clone.
    expect((await signIn(s, key.assert((await options(s)).challenge, origin, 2))).body.error.code).toBe(
      'invalid_passkey',
    );
    expect(counterOf(s, agentId)).toBe(3);
    // A registration challenge (handed out to a signed-in agent) does not sign in either.
    const session = await s.call('POST', '/session', {
      key: null,
      json: { email: 'grace@shop.example', password: PASSWORD },
    });
    const headers = {
      Cookie: session.headers.getSetCookie()[0]!.split(';')[0]!,
      'X-CSRF-Token': session.body.csrf_token,
    };
    const reg = await s.call('POST', '/session/passkeys/options', { key: null, headers });
    expect(reg.status, reg.text).toBe(200);
    expect((await signIn(s, key.assert(reg.body.challenge as string, origin, 4))).status).toBe(401);
  });

  it('counts failures toward the sign-in limits: past 5, even a good answer waits', async () => {
    const { s, origin, key } = await setUp();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    for (let i = 0; i < 5; i++)
      expect((await signIn(s, key.assert((await options(s)).challenge, origin, 4, other))).status).toBe(401);
    const limited = await signIn(s, key.assert((await options(s)).challenge, origin, 4));
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('too_many_attempts');
    // The password sign-in of the same email is limited too: one count for both ways in.
    const password = await s.call('POST', '/session', {
      key: null,
      json: { email: 'grace@shop.example', password: PASSWORD },
    });
    expect(password.status).toBe(429);
  });

  it('an unknown passkey is refused, and a malformed answer is a 400 naming the field', async () => {
    const { s, origin } = await setUp();
    const stranger = authenticator(new URL(s.url).hostname);
    expect((await signIn(s, stranger.assert((await options(s)).challenge, origin, 1))).body.error.code).toBe(
      'invalid_passkey',
    );
    const bad = await signIn(s, { id: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(JSON.stringify(bad.body.error.details)).toContain('response');
  });
});

describe('the passkeys of the signed-in agent', () => {
  it('asks for a discoverable credential, lists and removes passkeys; a key holder has no passkeys', async () => {
    const { s, key } = await setUp();
    const session = await s.call('POST', '/session', {
      key: null,
      json: { email: 'grace@shop.example', password: PASSWORD },
    });
    const headers = {
      Cookie: session.headers.getSetCookie()[0]!.split(';')[0]!,
      'X-CSRF-Token': session.body.csrf_token,
    };
    const opts = await s.call('POST', '/session/passkeys/options', { key: null, headers });
    expect(opts.body).toMatchObject({
      rp: { id: new URL(s.url).hostname, name: 'Ticketing' },
      user: { name: 'grace@shop.example', displayName: 'Grace' },
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      excludeCredentials: [{ id: key.id, type: 'public-key', transports: ['internal'] }],
    });
    const list = await s.call('GET', '/session/passkeys', { key: null, headers });
    expect(list.body).toEqual({ data: [{ id: key.id, name: 'Laptop', created_at: '2026-11-23T08:00:00.000Z' }] });
    expect(list.text).not.toContain(key.publicKey);
    const forged = await s.call('POST', '/session/passkeys', {
      key: null,
      headers,
      json: {
        name: 'Fake',
        response: { id: 'abc', rawId: 'abc', type: 'public-key', response: { clientDataJSON: 'e30' } },
      },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.param).toBe('response');
    expect((await s.call('DELETE', '/session/passkeys?id=nope', { key: null, headers })).body.error.code).toBe(
      'passkey_not_found',
    );
    const removed = await s.call('DELETE', `/session/passkeys?id=${key.id}`, { key: null, headers });
    expect(removed.body).toEqual({ id: key.id, deleted: true });
    expect((await s.call('GET', '/session', { key: null, headers })).body.agent.passkey_count).toBe(0);
    expect((await s.call('GET', '/session/passkeys')).body.error.code).toBe('session_required');
  });

  it('an admin can only empty an agent’s passkeys, which then sign nobody in', async () => {
    const { s, origin, key, agentId } = await setUp();
    const set = await s.call('POST', '/admin?r=agents', {
      json: { id: agentId, name: 'Grace', email: 'grace@shop.example', passkeys: [{ id: 'k', public_key: 'pk' }] },
    });
    expect(set.status).toBe(400);
    expect(set.body.error.param).toBe('passkeys');
    const reset = await s.call('POST', '/admin?r=agents', {
      json: { id: agentId, name: 'Grace', email: 'grace@shop.example', passkeys: [] },
    });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.agent.passkey_count).toBe(0);
    expect((await signIn(s, key.assert((await options(s)).challenge, origin, 4))).body.error.code).toBe(
      'invalid_passkey',
    );
  });
});

describe('WebAuthn challenges in the session store', () => {
  it('are taken once, and not after they expire', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const store = s.running.deps.sessions;
    await store.addChallenge('c1', 'agt_1', 1_000);
    await store.addChallenge('c2', null, 1_000);
    expect(await store.takeChallenge('c1', 500)).toEqual({ agentId: 'agt_1' });
    expect(await store.takeChallenge('c1', 500)).toBeUndefined();
    expect(await store.takeChallenge('c2', 1_000)).toBeUndefined();
    expect(await store.takeChallenge('nope', 0)).toBeUndefined();
  });
});

describe('sign-in challenges for anyone', () => {
  it('are limited per address, as they are stored until they expire', async () => {
    const s = await startServer({ env: { TICKETING_RATE_LIMIT: 'on' } });
    cleanup.push(() => s.close());
    for (let i = 0; i < 30; i++) await options(s);
    const limited = await s.call('POST', '/session/passkey/options', { key: null });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
