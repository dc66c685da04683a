import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { runCli } from '../test-support/cli.js';

const SECRET_KEY = /sk_live_[A-Za-z0-9]{32}/;
const PUBLIC_KEY = /pk_live_[A-Za-z0-9]{32}/;

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-first-keys-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Stops the server by the pid in its lock file (under `script` the server is not our child). */
async function stop(dir: string, child: ChildServer) {
  const { pid } = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as { pid: number };
  process.kill(pid, 'SIGTERM');
  await child.exited;
}

const me = async (url: string, key: string) =>
  (await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } })).json() as Promise<{
    key: { kind: string; mode: string };
  }>;

const signIn = async (url: string, email: string, password: string) =>
  (await fetch(`${url}/v1/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  }).then((r) => r.json())) as { agent: { role: string; must_change_password: boolean } };

describe('the first start', () => {
  it('writes the secret key to a 0600 file and prints only where, when standard output is not a terminal', async () => {
    const dir = await dataDir();
    const child = await startChild({ TICKETING_DATA_DIR: dir });
    cleanup.push(() => stop(dir, child));
    const out = child.output();
    expect(out).toMatch(PUBLIC_KEY); // the public key is public
    expect(out).not.toMatch(SECRET_KEY);
    expect(out).not.toContain('sk_live_');
    const path = join(dir, 'first-secret-key.txt');
    expect(out).toContain(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const sk = (await readFile(path, 'utf8')).trim();
    expect(sk).toMatch(new RegExp(`^${SECRET_KEY.source}$`));
    expect((await me(child.url, sk)).key).toMatchObject({ kind: 'secret', mode: 'live' });
    expect((await me(child.url, PUBLIC_KEY.exec(out)![0])).key).toMatchObject({ kind: 'public', mode: 'live' });
    // The admin agent's one-time password goes the same way: into a 0600 file, never to the log.
    const adminPath = join(dir, 'first-admin-password.txt');
    expect(out).toContain('admin@ticketing.localhost');
    expect(out).toContain(adminPath);
    expect((await stat(adminPath)).mode & 0o777).toBe(0o600);
    const password = /^password: (\S+)$/m.exec(await readFile(adminPath, 'utf8'))![1]!;
    expect(out).not.toContain(password);
    expect((await signIn(child.url, 'admin@ticketing.localhost', password)).agent).toMatchObject({
      role: 'admin',
      must_change_password: true,
    });
  });

  it('prints the secret key to a terminal and writes no file', async () => {
    const dir = await dataDir();
    const child = await startChild({ TICKETING_DATA_DIR: dir }, 20_000, { terminal: true });
    cleanup.push(() => stop(dir, child));
    const out = child.output();
    const sk = SECRET_KEY.exec(out)?.[0];
    expect(sk, out).toBeDefined();
    expect(out).toMatch(PUBLIC_KEY);
    expect(existsSync(join(dir, 'first-secret-key.txt'))).toBe(false);
    expect((await me(child.url, sk!)).key).toMatchObject({ kind: 'secret', mode: 'live' });
    const password = /password: (\S+)/.exec(out)?.[1];
    expect(password, out).toBeDefined();
    expect(existsSync(join(dir, 'first-admin-password.txt'))).toBe(false);
    expect((await signIn(child.url, 'admin@ticketing.localhost', password!)).agent.role).toBe('admin');
  });

  it('makes the admin agent also when keys were made with the CLI before the first start', async () => {
    const dir = await dataDir();
    const made = await runCli(['keys', 'create', '--secret'], { TICKETING_DATA_DIR: dir });
    expect(made.code, made.stderr).toBe(0);
    const child = await startChild({ TICKETING_DATA_DIR: dir });
    cleanup.push(() => stop(dir, child));
    const out = child.output();
    expect(out).not.toContain('Created your first API keys'); // the CLI's keys stay the only ones
    const adminPath = join(dir, 'first-admin-password.txt');
    expect(out).toContain(adminPath);
    const password = /^password: (\S+)$/m.exec(await readFile(adminPath, 'utf8'))![1]!;
    expect((await signIn(child.url, 'admin@ticketing.localhost', password)).agent).toMatchObject({
      role: 'admin',
      must_change_password: true,
    });
  });
});
