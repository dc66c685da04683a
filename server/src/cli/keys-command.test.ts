import { chmod, chown, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { runCli } from '../test-support/cli.js';
import { NOBODY } from '../test-support/other-user.js';
import { makeKeys } from '../test-support/server.js';

let dataDir: string;
const admin = makeKeys();
const asRoot = process.getuid?.() === 0;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ticketing-cli-'));
  await chmod(dataDir, 0o700);
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, { TICKETING_DATA_DIR: dataDir });
const me = (server: ChildServer, key: string) =>
  fetch(`${server.url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

describe('ticketing keys while the server runs', () => {
  it('creates, lists and revokes through the running server, which honours each change at once', async () => {
    const server = await startChild({ TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: `${admin.sk}` });
    try {
      const socket = await stat(join(dataDir, 'control.sock'));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);

      const created = await cli('keys', 'create', '--secret', '--label', 'support desk', '--json');
      expect(created.code, created.stderr).toBe(0);
      const made = JSON.parse(created.stdout) as { key: string; id: string; kind: string; prefix: string };
      expect(made).toMatchObject({ kind: 'secret', mode: 'live', state: 'active', label: 'support desk' });
      expect(made.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
      // No restart: the running server knows the key now.
      expect((await me(server, made.key)).body.key).toMatchObject({ kind: 'secret', mode: 'live' });

      const listed = JSON.parse((await cli('keys', 'list', '--json')).stdout) as { id: string; key: string | null }[];
      expect(listed.find((k) => k.id === made.id)).toMatchObject({ key: null, prefix: made.key.slice(0, 12) });
      const text = await cli('keys', 'list');
      expect(text.stdout).toContain(`${made.key.slice(0, 12)}… (secret, stored as a hash)`);
      expect(text.stdout).not.toContain(made.key);

      const revoked = await cli('keys', 'revoke', made.key.slice(0, 12));
      expect(revoked.stdout).toBe(`revoked ${made.id} (${made.key.slice(0, 12)}…)\n`);
      expect(revoked.stderr).toMatch(/running server refuses it from now on/);
      // At once: the very next request with it is refused.
      expect((await me(server, made.key)).body.error.code).toBe('invalid_api_key');

      const unknown = await cli('keys', 'revoke', 'sk_live_nothing');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe('No active key matches "sk_live_nothing".\n');

      // Both changes are in the audit log, without the key.
      const audit = await fetch(`${server.url}/v1/admin?r=audit`, { headers: { Authorization: `Bearer ${admin.sk}` } });
      const entries = ((await audit.json()) as { audit: { action: string; target: string; actor: { kind: string } }[] })
        .audit;
      expect(entries.filter((e) => e.target === made.id).map((e) => e.action)).toEqual(['key.revoked', 'key.created']);
      expect(JSON.stringify(entries)).not.toContain(made.key);
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses another local user: the control socket is the owner’s alone', async () => {
    if (!asRoot) {
      // Without root there is no second user to try; the socket's mode (0600) is checked above.
      expect((await stat(dataDir)).mode & 0o077).toBe(0);
      return;
    }
    const server = await startChild({ TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: `${admin.sk}` });
    try {
      // Even with the directory itself opened to everyone, the socket answers only its owner.
      await chmod(dataDir, 0o755);
      const before = JSON.parse((await cli('keys', 'list', '--json')).stdout) as unknown[];
      const intruder = await runCli(['keys', 'create', '--secret'], { TICKETING_DATA_DIR: dataDir }, NOBODY);
      expect(intruder.code).toBe(1);
      expect(intruder.stdout).toBe('');
      expect(intruder.stderr).toMatch(/control socket .* does not answer \(EACCES\)/);
      const list = await runCli(['keys', 'list'], { TICKETING_DATA_DIR: dataDir }, NOBODY);
      expect(list.code).toBe(1);
      expect(list.stdout).toBe('');
      expect(JSON.parse((await cli('keys', 'list', '--json')).stdout)).toEqual(before);
    } finally {
      await chmod(dataDir, 0o700);
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('ticketing keys with the server stopped', () => {
  it('works on the files, and the server honours the changes when it starts', async () => {
    const pk = (await cli('keys', 'create', '--public', '--test', '--origins', 'https://shop.example')).stdout.trim();
    expect(pk).toMatch(/^pk_test_/);
    const sk = (await cli('keys', 'create', '--secret')).stdout.trim();
    const revoked = await cli('keys', 'revoke', sk.slice(0, 12), '--json');
    expect(JSON.parse(revoked.stdout)).toMatchObject({ state: 'revoked', prefix: sk.slice(0, 12) });
    expect(revoked.stderr).toBe('');
    expect(await readFile(join(dataDir, 'config.json'), 'utf8')).not.toContain(sk);

    const bad = await cli('keys', 'create', '--origins', 'shop.example');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/origins\.0: an origin looks like https:\/\/shop\.example/);

    const server = await startChild({ TICKETING_DATA_DIR: dataDir });
    try {
      const fromShop = await fetch(`${server.url}/v1/meta`, {
        headers: { Authorization: `Bearer ${pk}`, Origin: 'https://shop.example' },
      });
      expect(fromShop.status).toBe(200);
      expect((await me(server, sk)).body.error.code).toBe('invalid_api_key');
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
    }

    if (asRoot) {
      // Root writing into a directory another user owns would leave files that user cannot read.
      await chown(dataDir, NOBODY.uid, NOBODY.gid);
      try {
        const wrongUser = await cli('keys', 'list');
        expect(wrongUser.code).toBe(1);
        expect(wrongUser.stderr).toMatch(/belongs to user id 65534; run this as that user/);
      } finally {
        await chown(dataDir, 0, 0);
      }
    }
  });

  it('explains its usage', async () => {
    const res = await cli('keys', 'frobnicate');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('ticketing keys create');
  });
});
