import { afterEach, describe, expect, it } from 'vitest';
import { authenticator } from '../test-support/passkey-authenticator.js';
import { eventually } from '../test-support/receiver.js';
import { startServer, type TestServer } from '../test-support/server.js';

// Two instances on one database share agents' sessions and the sign-in lockout (postgres project only).

const PASSWORD = 'correct horse battery';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function twoInstances(): Promise<[TestServer, TestServer]> {
  const a = await startServer();
  cleanup.push(() => a.close());
  const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
  cleanup.push(() => b.close({ keepData: true })); // the database is a's
  const res = await a.call('POST', '/admin?r=agents', {
    json: { name: 'Grace', email: 'grace@shop.example', password: PASSWORD },
  });
  expect(res.status).toBe(201);
  await eventually(() => b.running.deps.configStore.get().agents.some((g) => g.email === 'grace@shop.example'));
  return [a, b];
}

const signIn = (s: TestServer, password: string) =>
  s.call('POST', '/session', { key: null, json: { email: 'grace@shop.example', password } });

describe('sessions on several instances', () => {
  it('a session made on one instance works on the other, and signing out on one ends it on both', async () => {
    const [a, b] = await twoInstances();
    const res = await signIn(a, PASSWORD);
    expect(res.status).toBe(200);
    const headers = { Cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, 'X-CSRF-Token': res.body.csrf_token };
    expect((await b.call('GET', '/session', { key: null, headers })).status).toBe(200);
    expect((await b.call('DELETE', '/session', { key: null, headers })).status).toBe(200);
    expect((await a.call('GET', '/session', { key: null, headers })).body.error.code).toBe('not_signed_in');
  });

  it('failures counted on one instance lock the email out on the other', async () => {
    const [a, b] = await twoInstances();
    for (let i = 0; i < 3; i++) expect((await signIn(a, 'wrong')).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await signIn(b, 'wrong')).status).toBe(401);
    const locked = await signIn(a, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    expect((await signIn(b, PASSWORD)).status).toBe(429);
  });

  it('a passkey challenge handed out by one instance is answered on the other, once', async () => {
    // Both behind one public URL, as a load balancer puts them: one relying party, one origin.
    const env = { TICKETING_PUBLIC_URL: 'http://ticketing.test' };
    const a = await startServer({ env });
    cleanup.push(() => a.close());
    const b = await startServer({ env, keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    const made = await a.call('POST', '/admin?r=agents', {
      json: { name: 'Grace', email: 'grace@shop.example', password: PASSWORD },
    });
    const key = authenticator('ticketing.test');
    await a.running.deps.configStore.update((d) => {
      for (const agent of d.agents)
        if (agent.id === made.body.agent.id)
          agent.passkeys.push({
            id: key.id,
            public_key: key.publicKey,
            counter: 0,
            name: 'Laptop',
            transports: [],
            created_at: '',
          });
    });
    await eventually(() => b.running.deps.configStore.get().agents.some((g) => g.passkeys.length === 1));
    const options = await a.call('POST', '/session/passkey/options', { key: null });
    expect(options.body.rpId).toBe('ticketing.test');
    const answer = key.assert(options.body.challenge as string, 'http://ticketing.test', 1);
    const signedIn = await b.call('POST', '/session/passkey', { key: null, json: { response: answer } });
    expect(signedIn.status, signedIn.text).toBe(200);
    const again = await a.call('POST', '/session/passkey', { key: null, json: { response: answer } });
    expect(again.body.error.code).toBe('invalid_passkey');
  });
});
