import { Secret, TOTP } from 'otpauth';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// TOTP two-factor with real codes, computed here as an authenticator app would, at the server's clock.

const PASSWORD = 'correct horse battery';
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let now = Date.parse('2026-11-23T08:00:00Z');
async function setUp() {
  now = Date.parse('2026-11-23T08:00:00Z');
  const s = await startServer({ clock: () => new Date(now) });
  cleanup.push(() => s.close());
  const res = await s.call('POST', '/admin?r=agents', {
    json: { name: 'Grace', email: 'grace@shop.example', password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return { s, agentId: res.body.agent.id as string };
}

const signIn = (s: TestServer, code?: string) =>
  s.call('POST', '/session', {
    key: null,
    json: { email: 'grace@shop.example', password: PASSWORD, ...(code === undefined ? {} : { code }) },
  });
const sessionOf = (res: Awaited<ReturnType<typeof signIn>>) => ({
  Cookie: res.headers.getSetCookie()[0]!.split(';')[0]!,
  'X-CSRF-Token': res.body.csrf_token as string,
});
const codeAt = (secret: string, at: number) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at });

/** Enrols and confirms TOTP for the agent; returns the secret and the recovery codes. */
async function enrol(s: TestServer) {
  const session = sessionOf(await signIn(s));
  const start = await s.call('POST', '/session/totp', { key: null, headers: session });
  expect(start.status, start.text).toBe(200);
  const secret = start.body.secret as string;
  const confirm = await s.call('POST', '/session/totp/confirm', {
    key: null,
    headers: session,
    json: { code: codeAt(secret, now) },
  });
  expect(confirm.status, confirm.text).toBe(200);
  return { secret, recovery: confirm.body.recovery_codes as string[], session };
}

describe('TOTP two-factor', () => {
  it('enrols with a QR code and the secret as text, on only once a real code confirms it', async () => {
    const { s } = await setUp();
    const session = sessionOf(await signIn(s));
    const start = await s.call('POST', '/session/totp', { key: null, headers: session });
    expect(start.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.body.otpauth_url).toMatch(
      new RegExp(`^otpauth://totp/Ticketing:grace%40shop\\.example\\?.*secret=${start.body.secret}`),
    );
    expect(start.body.qr_svg).toMatch(/^<svg[^>]*>[^]*<\/svg>\s*$/);
    expect(start.body.qr_svg).not.toMatch(/<script/i);
    // Not on yet: a sign-in needs no code, and a wrong code does not turn it on.
    expect((await signIn(s)).status).toBe(200);
    const wrong = await s.call('POST', '/session/totp/confirm', {
      key: null,
      headers: session,
      json: { code: codeAt(start.body.secret, now + 10 * 60_000) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('code');
    expect((await s.call('GET', '/session', { key: null, headers: session })).body.agent.two_factor_enabled).toBe(
      false,
    );

    const ok = await s.call('POST', '/session/totp/confirm', {
      key: null,
      headers: session,
      json: { code: codeAt(start.body.secret, now) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.recovery_codes).toHaveLength(10);
    expect(new Set(ok.body.recovery_codes).size).toBe(10);
    expect((await s.call('GET', '/session', { key: null, headers: session })).body.agent.two_factor_enabled).toBe(true);
    // Neither the secret nor a recovery code is ever read back.
    const admin = await s.call('GET', '/admin?r=agents');
    expect(admin.text).not.toContain(start.body.secret);
    expect(admin.body.agents.find((a: { email: string }) => a.email === 'grace@shop.example').two_factor_enabled).toBe(
      true,
    );
    expect((await s.call('POST', '/session/totp', { key: null, headers: session })).body.error.code).toBe(
      'two_factor_enabled',
    );
  });

  it('then sign-in needs a code: none is two_factor_required, a wrong or replayed one invalid_code', async () => {
    const { s } = await setUp();
    const { secret } = await enrol(s);
    now += 60_000;
    const none = await signIn(s);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('two_factor_required');
    expect(none.headers.getSetCookie()).toEqual([]);
    const wrong = await signIn(s, codeAt(secret, now + 5 * 60_000));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_code');
    const code = codeAt(secret, now);
    const ok = await signIn(s, code);
    expect(ok.status).toBe(200);
    expect(ok.body.agent.two_factor_enabled).toBe(true);
    // The same code again, within its 30 seconds: refused.
    expect((await signIn(s, code)).body.error.code).toBe('invalid_code');
    now += 30_000;
    expect((await signIn(s, codeAt(secret, now))).status).toBe(200);
    // A wrong password with a right code is still a wrong password.
    const bad = await s.call('POST', '/session', {
      key: null,
      json: { email: 'grace@shop.example', password: 'not it', code: codeAt(secret, now + 30_000) },
    });
    expect(bad.body.error.code).toBe('invalid_credentials');
  });

  it('a recovery code signs in once in place of a code', async () => {
    const { s } = await setUp();
    const { recovery } = await enrol(s);
    const first = await signIn(s, recovery[3]!.toUpperCase());
    expect(first.status).toBe(200);
    expect((await signIn(s, recovery[3]!)).body.error.code).toBe('invalid_code');
    expect((await signIn(s, recovery[4]!.replace('-', ''))).status).toBe(200);
  });

  it('wrong codes count toward the lockout', async () => {
    const { s } = await setUp();
    const { secret } = await enrol(s);
    for (let i = 0; i < 5; i++) expect((await signIn(s, '000000')).body.error.code).toBe('invalid_code');
    const locked = await signIn(s, codeAt(secret, now));
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
  });

  it('turns off with a code (not without), and an admin can reset it', async () => {
    const { s, agentId } = await setUp();
    const { secret, session } = await enrol(s);
    now += 60_000;
    const wrong = await s.call('DELETE', '/session/totp', { key: null, headers: session, json: { code: '123456' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('code');
    const off = await s.call('DELETE', '/session/totp', {
      key: null,
      headers: session,
      json: { code: codeAt(secret, now) },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toEqual({ two_factor_enabled: false });
    expect((await signIn(s)).status).toBe(200);

    await enrol(s);
    expect((await signIn(s)).body.error.code).toBe('two_factor_required');
    const reset = await s.call('POST', '/admin?r=agents', {
      json: { id: agentId, name: 'Grace', email: 'grace@shop.example', two_factor_secret: null },
    });
    expect(reset.status).toBe(200);
    expect(reset.body.agent.two_factor_enabled).toBe(false);
    expect((await signIn(s)).status).toBe(200);
  });
});
