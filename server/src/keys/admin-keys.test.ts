import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// API keys managed over /admin r=keys while the server runs (the console's Settings): the key shown
// once, revocation and origins effective at the next request, and nothing of a key in any read.

let s: TestServer;
let admin: Record<string, string>;
let agent: Record<string, string>;

async function session(email: string, role: 'admin' | 'agent') {
  const password = `${role} password here`;
  await s.call('POST', '/admin?r=agents', { json: { name: role, email, role, password } });
  const res = await s.call('POST', '/session', { key: null, json: { email, password } });
  return { Cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, 'X-CSRF-Token': res.body.csrf_token as string };
}

beforeAll(async () => {
  s = await startServer();
  admin = await session('boss@shop.example', 'admin');
  agent = await session('helper@shop.example', 'agent');
});
afterAll(() => s.close());

const create = (json: unknown, headers = admin) => s.call('POST', '/admin?r=keys', { key: null, headers, json });
const me = (key: string, headers: Record<string, string> = {}) => s.call('GET', '/me', { key, headers });

describe('/admin r=keys', () => {
  it('creates a secret key that works at once, shows it once, and refuses it after revocation', async () => {
    const made = await create({ kind: 'secret', mode: 'live', label: 'ERP sync' });
    expect(made.status, made.text).toBe(201);
    const key = made.body.key as string;
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(made.body.api_key).toMatchObject({
      kind: 'secret',
      mode: 'live',
      state: 'active',
      prefix: key.slice(0, 12),
      label: 'ERP sync',
      last_used_at: null,
    });
    expect((await me(key)).body.key).toMatchObject({ kind: 'secret', admin: true });

    // No read shows the key, only its prefix: the list, r=all, the audit log.
    for (const path of ['/admin?r=keys', '/admin?r=all', '/admin?r=audit&limit=50']) {
      const read = await s.call('GET', path);
      expect(read.text, path).not.toContain(key);
      expect(read.text, path).not.toContain(key.slice(12));
    }
    const listed = (await s.call('GET', '/admin?r=keys')).body.keys;
    // Used once (the /me above): last_used_at says when, to the hour.
    const mine = listed.find((k: { id: string }) => k.id === made.body.api_key.id);
    expect(mine).toMatchObject({ prefix: key.slice(0, 12), state: 'active' });
    expect(Date.now() - Date.parse(mine.last_used_at)).toBeLessThan(60_000);
    expect(Object.keys(listed[0])).not.toContain('key');
    expect(Object.keys(listed[0])).not.toContain('hash');
    const entry = (await s.call('GET', '/admin?r=audit&limit=5')).body.audit.find(
      (e: { action: string }) => e.action === 'key.created',
    );
    expect(entry).toMatchObject({ target: made.body.api_key.id, details: { prefix: key.slice(0, 12), via: 'api' } });

    const revoked = await s.call('DELETE', `/admin?r=keys&id=${made.body.api_key.id}`, { key: null, headers: admin });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ id: made.body.api_key.id, deleted: true });
    const refused = await me(key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    expect(
      (await s.call('GET', '/admin?r=keys')).body.keys.find((k: { id: string }) => k.id === made.body.api_key.id),
    ).toMatchObject({ state: 'revoked', revoked_at: expect.any(String) });
    // Revoked once: again is 404, as is an id that never was, and a prefix is no id here.
    expect((await s.call('DELETE', `/admin?r=keys&id=${made.body.api_key.id}`)).body.error.code).toBe('key_not_found');
    expect((await s.call('DELETE', '/admin?r=keys&id=key_nothing')).status).toBe(404);
    const other = await create({ kind: 'secret', mode: 'test' });
    expect((await s.call('DELETE', `/admin?r=keys&id=${other.body.api_key.prefix}`)).status).toBe(404);
  });

  it('lets a key revoke itself: that answer is the last one it gets', async () => {
    const made = await create({ kind: 'secret', mode: 'live' });
    const self = await s.call('DELETE', `/admin?r=keys&id=${made.body.api_key.id}`, { key: made.body.key });
    expect(self.status).toBe(200);
    expect((await me(made.body.key)).status).toBe(401);
    const entry = (await s.call('GET', '/admin?r=audit&limit=5')).body.audit.find(
      (e: { action: string }) => e.action === 'key.revoked',
    );
    // The actor is named by the key's prefix, never the key.
    expect(entry.actor).toEqual({ kind: 'secret', prefix: made.body.key.slice(0, 12) });
  });

  it("sets a public key's origins while the server runs; a browser from another origin is refused at once", async () => {
    const made = await create({ kind: 'public', mode: 'live', origins: ['https://shop.example'] });
    expect(made.status).toBe(201);
    const pk = made.body.key as string;
    expect((await s.call('GET', '/admin?r=keys')).text).not.toContain(pk);
    const from = (origin: string) => me(pk, { Origin: origin });
    expect((await from('https://shop.example')).status).toBe(200);
    expect((await from('https://other.example')).body.error.code).toBe('origin_not_allowed');

    const set = await s.call('POST', '/admin?r=keys', {
      key: null,
      headers: admin,
      json: { id: made.body.api_key.id, origins: ['https://other.example'] },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.api_key.origins).toEqual(['https://other.example']);
    expect((await from('https://other.example')).status).toBe(200);
    expect((await from('https://shop.example')).body.error.code).toBe('origin_not_allowed');

    // Only an active public key has origins; a malformed origin is named at its field.
    const bad = await s.call('POST', '/admin?r=keys', {
      json: { id: made.body.api_key.id, origins: ['https://ok.example', 'shop.example/path'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].param).toBe('origins.1');
    const secret = await create({ kind: 'secret', mode: 'live' });
    const onSecret = await s.call('POST', '/admin?r=keys', { json: { id: secret.body.api_key.id, origins: [] } });
    expect(onSecret.status).toBe(404);
    expect(onSecret.body.error.code).toBe('key_not_found');
  });

  it('refuses bad input at its field, and a role-agent session or a test key altogether', async () => {
    const bad = await create({ kind: 'master', mode: 'live', origins: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { param: string }) => d.param).sort()).toEqual(['kind', 'origins.0']);

    for (const [method, path, json] of [
      ['GET', '/admin?r=keys', undefined],
      ['POST', '/admin?r=keys', { kind: 'secret', mode: 'live' }],
      ['DELETE', '/admin?r=keys&id=key_x', undefined],
    ] as const) {
      const res = await s.call(method, path, { key: null, headers: agent, ...(json ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      const test = await s.call(method, path, { key: s.keys.skTest, ...(json ? { json } : {}) });
      expect(test.status).toBe(403);
    }
    // Nothing was made by the refused calls.
    const before = (await s.call('GET', '/admin?r=keys')).body.keys.length;
    await s.call('POST', '/admin?r=keys', { key: null, headers: agent, json: { kind: 'secret', mode: 'live' } });
    expect((await s.call('GET', '/admin?r=keys')).body.keys.length).toBe(before);
  });
});
