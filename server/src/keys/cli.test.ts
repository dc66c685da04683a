import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../test-support/server.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
let dataDir: string;

const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { PATH: process.env.PATH, TICKETING_DATA_DIR: dataDir },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ticketing-cli-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('ticketing keys', () => {
  it('creates, lists and revokes keys that the server honours', async () => {
    const sk = (await cli('keys', 'create', '--secret', '--label', 'support desk')).stdout.trim();
    expect(sk).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    const pk = (await cli('keys', 'create', '--public', '--test', '--origins', 'https://shop.example')).stdout.trim();
    expect(pk).toMatch(/^pk_test_/);

    const list = (await cli('keys', 'list')).stdout;
    expect(list).toContain(pk); // public keys are public
    expect(list).not.toContain(sk);
    expect(list).toContain(`${sk.slice(0, 12)}…`);
    expect(list).toContain('origins=https://shop.example');
    expect(await readFile(join(dataDir, 'config.json'), 'utf8')).not.toContain(sk);

    const s = await startServer({ dataDir: dataDir, keys: { pk: '', sk: '', pkTest: '', skTest: '' } });
    try {
      expect((await s.call('GET', '/me', { key: sk })).body.key).toMatchObject({ kind: 'secret', mode: 'live' });
      const fromShop = await s.call('GET', '/meta', { key: pk, headers: { Origin: 'https://shop.example' } });
      expect(fromShop.status).toBe(200);
      // The CLI refuses to touch a directory the server owns.
      const busy = await cli('keys', 'list');
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/Another Ticketing server/);
    } finally {
      await s.close({ keepData: true });
    }

    const revoked = await cli('keys', 'revoke', sk.slice(0, 12));
    expect(revoked.stdout).toMatch(/^revoked key_/);
    const s2 = await startServer({ dataDir: dataDir, keys: { pk: '', sk: '', pkTest: '', skTest: '' } });
    try {
      expect((await s2.call('GET', '/me', { key: sk })).body.error.code).toBe('invalid_api_key');
    } finally {
      await s2.close({ keepData: true });
    }
  });

  it('explains its usage', async () => {
    const res = await cli('keys', 'frobnicate');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('ticketing keys create');
  });
});
