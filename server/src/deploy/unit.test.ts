import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { startChild } from '../test-support/child-server.js';
import { NOBODY, checkoutPathForOthers, nodeForOthers } from '../test-support/other-user.js';
import { parseUnit, serviceEnvironment, unitEnvironment, type Unit } from '../test-support/systemd-unit.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
let unit: Unit;
let work: string;
beforeAll(async () => {
  unit = parseUnit(read('deploy/ticketing.service'));
  work = await mkdtemp(join(tmpdir(), 'ticketing-unit-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

const one = (section: string, key: string) => {
  const values = unit[section]?.[key];
  expect(values, `${section}.${key}`).toHaveLength(1);
  return values![0]!;
};

describe('deploy/ticketing.service', () => {
  it('parses, and names the right paths', () => {
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install']);
    const env = unitEnvironment(unit);
    const dataDir = env.TICKETING_DATA_DIR!;
    // systemd makes /var/lib/<StateDirectory> for the service user; it is the data directory, and the
    // only path the service may write.
    expect(dataDir).toBe(`/var/lib/${one('Service', 'StateDirectory')}`);
    expect(one('Service', 'ReadWritePaths')).toBe(dataDir);
    // It runs what `pnpm build` emits: server/dist/main.js, the package's main.
    const checkout = one('Service', 'WorkingDirectory');
    expect(one('Service', 'ExecStart')).toBe(`/usr/bin/node ${checkout}/server/dist/main.js`);
    expect(JSON.parse(read('server/package.json')).main).toBe('dist/main.js');
    expect(read('server/tsconfig.build.json')).toContain('"outDir": "dist"');
    expect(one('Unit', 'Documentation')).toBe(`file:${checkout}/docs/deploy.md`);
    expect(one('Install', 'WantedBy')).toBe('multi-user.target');
  });

  it('is hardened', () => {
    expect(one('Service', 'User')).toBe('ticketing');
    const hardening: Record<string, string> = {
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      ProtectHome: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectControlGroups: 'yes',
      RestrictSUIDSGID: 'yes',
      CapabilityBoundingSet: '',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
      SystemCallFilter: '@system-service',
      StateDirectoryMode: '0700',
      UMask: '0077',
    };
    for (const [key, value] of Object.entries(hardening)) expect(one('Service', key), key).toBe(value);
    // V8 compiles code at run time: W^X memory would kill the process.
    expect(unit.Service!.MemoryDenyWriteExecute).toBeUndefined();
    // Longer than the server's own grace (5 s by default), drain (10 s) and outbox grace (2 s), so
    // SIGTERM is not cut short.
    expect(Number(one('Service', 'TimeoutStopSec'))).toBeGreaterThan(5 + 10 + 2);
  });

  it('needs its environment file, and has no placeholder address of its own', () => {
    // A missing /etc/ticketing/env stops the start instead of leaving a made-up TICKETING_PUBLIC_URL.
    expect(one('Service', 'EnvironmentFile')).toBe('/etc/ticketing/env');
    expect(unitEnvironment(unit)).not.toHaveProperty('TICKETING_PUBLIC_URL');
  });

  it('has settings the server accepts, and the server starts with them', async () => {
    // The unit's defaults and the environment file the guide writes.
    const env = serviceEnvironment(unit, read('docs/deploy.md'));
    const config = loadConfig(env);
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      trustProxy: true,
      publicUrl: 'https://support.example.com',
    });
    // The same environment, with a data directory and a port of this test's own.
    const child = await startChild({
      ...env,
      TICKETING_DATA_DIR: join(work, 'data'),
      TICKETING_PORT: '0',
      TICKETING_LOG_LEVEL: 'info',
    });
    try {
      expect(child.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // Under systemd standard output is the journal, not a terminal: the first secret key is in a file.
      expect(child.output()).not.toMatch(/sk_live_/);
      const sk = (await readFile(join(work, 'data', 'first-secret-key.txt'), 'utf8')).match(
        /sk_live_[A-Za-z0-9]{24,}/,
      )![0];
      const me = (await (await fetch(`${child.url}/v1/me`, { headers: { Authorization: `Bearer ${sk}` } })).json()) as {
        portal: { public_url: string };
      };
      expect(me.portal.public_url).toBe('https://support.example.com');
      expect((await fetch(`${child.url}/ready`)).status).toBe(200);
    } finally {
      child.proc.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    }
    // The journal tells that it stopped, and how long the stop took, as a JSON line like the rest.
    const lines = child.output().split('\n');
    expect(lines.some((l) => /^\{.*"msg":"stopping"/.test(l))).toBe(true);
    expect(lines.some((l) => /^\{.*"ms":\d+.*"msg":"stopped"/.test(l))).toBe(true);
  });
});

describe('deploy/ticketing@.service', () => {
  it('is the single unit with the port from the instance name and an optional file per instance', () => {
    const template = parseUnit(read('deploy/ticketing@.service'));
    expect(unitEnvironment(template)).toEqual({ ...unitEnvironment(unit), TICKETING_PORT: '%i' });
    expect(template.Service!.EnvironmentFile).toEqual(['/etc/ticketing/env', '-/etc/ticketing/env.%i']);
    // Everything else (user, paths, hardening, stop timeout) is the single unit's, setting for setting.
    const rest = (u: Unit) => {
      const { Environment, EnvironmentFile, ...service } = u.Service!;
      void Environment;
      void EnvironmentFile;
      return { ...u, Unit: { ...u.Unit, Description: [] }, Service: service };
    };
    expect(rest(template)).toEqual(rest(unit));
    expect(template.Unit!.Description).toEqual(['Ticketing customer-support server on port %i']);
  });
});

describe('docs/deploy.md', () => {
  it('shows the shipped proxy configurations exactly, and points at the unit file', () => {
    const guide = read('docs/deploy.md');
    const blocks = [...guide.matchAll(/```(\w+)\n([^]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
    expect(blocks.find((b) => b.lang === 'nginx')?.text).toBe(read('deploy/nginx.conf'));
    expect(blocks.find((b) => b.lang === 'caddyfile')?.text).toBe(read('deploy/Caddyfile'));
    expect(blocks.find((b) => b.lang === 'ini')?.text).toBe(read('deploy/ticketing.service'));
  });
});

describe('the CLI wrapper of docs/deploy.md', () => {
  /** The script as the guide writes it, for the user nobody and a directory of this test's own. */
  async function wrapper(envFileMode: number) {
    const script = /sudo tee \/usr\/local\/bin\/ticketing >\/dev\/null <<'SH'\n([^]*?)\nSH\n/.exec(
      read('docs/deploy.md'),
    )![1]!;
    const dir = await mkdtemp(join(tmpdir(), 'ticketing-wrapper-'));
    await chmod(dir, 0o755);
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    await chown(data, NOBODY.uid, NOBODY.gid);
    const envFile = join(dir, 'env');
    await writeFile(envFile, 'TICKETING_PUBLIC_URL=https://support.example.com\n', { mode: envFileMode });
    const path = join(dir, 'ticketing');
    const text = script
      .replace('-u ticketing', `-u ${(await promisify(execFile)('id', ['-nu', String(NOBODY.uid)])).stdout.trim()}`)
      .replace('TICKETING_DATA_DIR=/var/lib/ticketing', `TICKETING_DATA_DIR=${data}`)
      .replaceAll('/etc/ticketing/env', envFile)
      .replace('/usr/bin/node', nodeForOthers())
      .replace('/opt/ticketing/server/bin/ticketing.js', checkoutPathForOthers(join(ROOT, 'server/bin/ticketing.js')));
    await writeFile(path, `${text}\n`, { mode: 0o755 });
    // Run by root as cron runs its jobs: PATH=/usr/bin:/bin (no /usr/sbin, where runuser is), no sudo.
    const run = () => promisify(execFile)(path, ['keys', 'create', '--public'], { env: { PATH: '/usr/bin:/bin' } });
    return { dir, data, run };
  }

  it('runs the CLI as the service user on the unit’s data directory with the env file, as root from cron', async () => {
    const { dir, data, run } = await wrapper(0o644);
    try {
      const { stdout } = await run();
      expect(stdout).toMatch(/pk_live_[A-Za-z0-9]{24,}/);
      // Written by the service user, into the unit's data directory (not ./data beside the checkout).
      expect((await stat(join(data, 'config.json'))).uid).toBe(NOBODY.uid);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to run when the service user cannot read the env file, rather than act on other settings', async () => {
    // systemd reads the file as root, so the server has settings (a TICKETING_DATABASE_URL, say) that
    // the CLI would silently go without.
    const { dir, data, run } = await wrapper(0o600);
    try {
      const failed = await run().then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed?.code).not.toBe(0);
      expect(failed?.stderr).toMatch(/Permission denied/);
      await expect(stat(join(data, 'config.json'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
