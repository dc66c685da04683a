import { afterEach, describe, expect, it } from 'vitest';
import { atFullPasswordCost } from '../test-support/password-cost.js';
import { startServer, type TestServer } from '../test-support/server.js';

// Guessing passwords: the lockout per email and per address, kept across a restart, and an unknown
// email that takes as long as a wrong password.

const PASSWORD = 'correct horse battery';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A server that believes X-Forwarded-For, so a test can speak from several addresses. */
async function server(options: Parameters<typeof startServer>[0] = {}) {
  const s = await startServer({ ...options, env: { TICKETING_TRUST_PROXY: 'on', ...options.env } });
  cleanup.push(() => s.close());
  return s;
}

let seq = 0;
async function makeAgent(s: TestServer) {
  seq++;
  const res = await s.call('POST', '/admin?r=agents', {
    json: { name: `Grace ${seq}`, email: `grace${seq}@shop.example`, password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return res.body.agent as { id: string; email: string };
}

const signIn = (s: TestServer, email: string, password: string, from = '198.51.100.7') =>
  s.call('POST', '/session', { key: null, json: { email, password }, headers: { 'X-Forwarded-For': from } });

describe('failed sign-ins', () => {
  it('after 5 for one email, 429 with Retry-After for 15 minutes, even with the right password', async () => {
    let now = Date.parse('2026-11-23T08:00:00Z');
    const s = await server({ clock: () => new Date(now) });
    const agent = await makeAgent(s);
    const other = await makeAgent(s);
    for (let i = 0; i < 5; i++) {
      now += 1000;
      const res = await signIn(s, agent.email, `wrong ${i}`, `198.51.100.${i}`);
      expect(res.body.error.code).toBe('invalid_credentials');
    }
    now += 1000;
    const locked = await signIn(s, agent.email.toUpperCase(), PASSWORD, '203.0.113.9');
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    expect(locked.headers.getSetCookie()).toEqual([]);
    // The first failure was 6 s ago: it leaves the window 15 minutes after it was made.
    expect(Number(locked.headers.get('Retry-After'))).toBe(15 * 60 - 5);
    // Another agent from the same address is not locked out.
    expect((await signIn(s, other.email, PASSWORD)).status).toBe(200);
    now += 15 * 60_000;
    expect((await signIn(s, agent.email, PASSWORD)).status).toBe(200);
  });

  it('after 20 from one address, 429 for any email from it; other addresses go on', async () => {
    const s = await server();
    const agent = await makeAgent(s);
    for (let i = 0; i < 20; i++) {
      const res = await signIn(s, `guess${i}@shop.example`, 'wrong', '198.51.100.20');
      expect(res.status).toBe(401);
    }
    const locked = await signIn(s, agent.email, PASSWORD, '198.51.100.20');
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    expect(Number(locked.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await signIn(s, agent.email, PASSWORD, '198.51.100.21')).status).toBe(200);
  });

  it('lets no more than 5 guesses for an email through when they are sent all at once', async () => {
    const s = await server();
    const agent = await makeAgent(s);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(s, agent.email, `wrong ${i}`, `198.51.100.${100 + i}`)),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => a.status === 429).length).toBe(12 - checked);
  });

  it('limits guessing the current password through a session as sign-ins are limited', async () => {
    const s = await server();
    const agent = await makeAgent(s);
    const signedIn = await signIn(s, agent.email, PASSWORD);
    const headers = {
      Cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]!,
      'X-CSRF-Token': signedIn.body.csrf_token,
      'X-Forwarded-For': '198.51.100.7',
    };
    const change = (current_password: string) =>
      s.call('POST', '/session/password', {
        key: null,
        headers,
        json: { current_password, new_password: 'a brand new password' },
      });
    for (let i = 0; i < 5; i++) expect((await change(`guess ${i}`)).body.error.param).toBe('current_password');
    const locked = await change(PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    expect((await signIn(s, agent.email, 'a brand new password')).status).toBe(429); // unchanged, and locked
  });

  it('keeps the lockout across a restart', async () => {
    const first = await startServer({ env: { TICKETING_TRUST_PROXY: 'on' } });
    const agent = await makeAgent(first);
    for (let i = 0; i < 5; i++) expect((await signIn(first, agent.email, 'wrong')).status).toBe(401);
    await first.close({ keepData: true });
    const again = await startServer({ dataDir: first.dataDir, keys: first.keys, env: { TICKETING_TRUST_PROXY: 'on' } });
    try {
      const res = await signIn(again, agent.email, PASSWORD, '203.0.113.50');
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('too_many_attempts');
    } finally {
      await again.close();
      await first.close();
    }
  });

  // At the production cost: what is compared is the hash's time against none. Some twenty full-cost
  // hashes: generous time for a loaded machine.
  it('answers an unknown email in about the time of a wrong password', { timeout: 120_000 }, () =>
    atFullPasswordCost(async () => {
      const s = await server();
      const agents = await Promise.all([1, 2, 3].map(() => makeAgent(s)));
      const timed = async (email: string, from: string) => {
        const start = performance.now();
        const res = await signIn(s, email, 'wrong password', from);
        expect(res.body.error.code).toBe('invalid_credentials');
        return performance.now() - start;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 9; i++) {
        known.push(await timed(agents[i % 3]!.email, `198.51.100.${i}`));
        unknown.push(await timed(`nobody${i}@shop.example`, `203.0.113.${i}`));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      // Loose: the scrypt check (tens of milliseconds) dominates both; without the dummy hash an
      // unknown email answers in a millisecond or two.
      const ratio = median(unknown) / median(known);
      expect(ratio, `unknown ${median(unknown)} ms, known ${median(known)} ms`).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    }),
  );
});
