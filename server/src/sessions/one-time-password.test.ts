import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/cli.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// One-time passwords: the first start's admin agent, `ticketing agents reset-password`, and the
// password change they require before anything else.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(env: Record<string, string> = {}) {
  const s = await startServer({ env });
  cleanup.push(() => s.close());
  return s;
}

/** The first start's admin sign-in, from the 0600 file it writes when standard output is no terminal. */
async function firstAdmin(s: TestServer) {
  const text = await readFile(join(s.dataDir, 'first-admin-password.txt'), 'utf8');
  return { email: /^email: (\S+)$/m.exec(text)![1]!, password: /^password: (\S+)$/m.exec(text)![1]! };
}

async function signIn(s: TestServer, email: string, password: string) {
  const res = await s.call('POST', '/session', { key: null, json: { email, password } });
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  return { res, session: { Cookie: cookie, 'X-CSRF-Token': res.body.csrf_token as string } };
}

describe('the first start’s admin agent', () => {
  it('signs in once with its one-time password, and must choose a new one before anything else', async () => {
    const s = await server();
    const { email, password } = await firstAdmin(s);
    expect(email).toBe('admin@ticketing.localhost');
    expect(password).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    expect(s.logs.join('\n')).not.toContain(password);

    const { res, session } = await signIn(s, email, password);
    expect(res.status).toBe(200);
    expect(res.body.agent).toMatchObject({ email, role: 'admin', must_change_password: true });
    const t = await createTicket(s);
    for (const [method, path, json] of [
      ['GET', '/list', undefined],
      ['GET', '/admin?r=agents', undefined],
      ['POST', '/reply', { ticket_id: t.id, message: 'hello' }],
    ] as const) {
      const refused = await s.call(method, path, { key: null, headers: session, ...(json ? { json } : {}) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe('password_change_required');
    }
    expect((await s.call('GET', '/session', { key: null, headers: session })).status).toBe(200);

    const same = await s.call('POST', '/session/password', {
      key: null,
      headers: session,
      json: { current_password: password, new_password: password },
    });
    expect(same.body.error.param).toBe('new_password');
    const changed = await s.call('POST', '/session/password', {
      key: null,
      headers: session,
      json: { current_password: password, new_password: 'my own good password' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.agent.must_change_password).toBe(false);
    const renewed = {
      Cookie: changed.headers.getSetCookie()[0]!.split(';')[0]!,
      'X-CSRF-Token': changed.body.csrf_token,
    };
    expect((await s.call('GET', '/list', { key: null, headers: renewed })).status).toBe(200);
    expect((await s.call('GET', '/admin?r=agents', { key: null, headers: renewed })).status).toBe(200);
    // The one-time password is spent, and its file is gone.
    expect((await signIn(s, email, password)).res.body.error.code).toBe('invalid_credentials');
    await expect.poll(() => existsSync(join(s.dataDir, 'first-admin-password.txt'))).toBe(false);
  });

  it('takes its email from TICKETING_ADMIN_EMAIL, and is made only on an empty data directory', async () => {
    const s = await server({ TICKETING_ADMIN_EMAIL: 'Owner@Shop.example' });
    expect((await firstAdmin(s)).email).toBe('owner@shop.example');
    const agents = (await s.call('GET', '/admin?r=agents')).body.agents;
    expect(agents).toEqual([expect.objectContaining({ email: 'owner@shop.example', role: 'admin', active: true })]);
    await s.close({ keepData: true });
    const again = await startServer({ dataDir: s.dataDir, keys: s.keys });
    try {
      expect((await again.call('GET', '/admin?r=agents')).body.agents).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});

describe('ticketing agents reset-password', () => {
  it('prints a new one-time password; the agent’s sessions end and the old password stops working', async () => {
    const s = await server();
    const agent = { name: 'Grace', email: 'grace@shop.example', password: 'the old password' };
    expect((await s.call('POST', '/admin?r=agents', { json: agent })).status).toBe(201);
    const before = await signIn(s, agent.email, agent.password);
    expect(before.res.status).toBe(200);

    const env = { TICKETING_DATA_DIR: s.dataDir, ...(s.databaseUrl ? { TICKETING_DATABASE_URL: s.databaseUrl } : {}) };
    const cli = await runCli(['agents', 'reset-password', 'GRACE@shop.example'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const password = cli.stdout.trim();
    expect(password).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    expect(cli.stderr).toContain('grace@shop.example');

    const old = await s.call('GET', '/session', { key: null, headers: before.session });
    expect(old.body.error.code).toBe('not_signed_in');
    expect((await signIn(s, agent.email, agent.password)).res.status).toBe(401);
    const after = await signIn(s, agent.email, password);
    expect(after.res.status).toBe(200);
    expect(after.res.body.agent.must_change_password).toBe(true);
    const audit = (await s.call('GET', '/admin?r=audit&limit=20')).body.audit;
    expect(audit.find((e: { action: string }) => e.action === 'agent.password_reset')).toMatchObject({
      actor: { kind: 'system' },
      details: { via: 'cli' },
    });

    const unknown = await runCli(['agents', 'reset-password', 'nobody@shop.example'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('No agent has the email nobody@shop.example.\n');
  });
});
