import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';

// Under systemd (or any log shipper) standard output is a pipe that is parsed as JSON lines: the start's
// lines for a person (first keys, console, "listening on") must be JSON there too (issue 33), while a
// person at a terminal keeps reading them as text.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function start(options: { terminal?: boolean } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-start-lines-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const child = await startChild({ TICKETING_DATA_DIR: dir, TICKETING_LOG_LEVEL: 'info' }, 30_000, options);
  const stop = async () => {
    // By the pid in the lock file: under `script` the server is not our child.
    const { pid } = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
    return child.exited;
  };
  cleanup.push(() => (child.proc.exitCode === null ? stop() : Promise.resolve()));
  return { dir, child, stop };
}

const lines = (child: ChildServer) => child.output().split(/\r?\n/).filter(Boolean);

describe('the start and stop lines', () => {
  it('are all JSON log lines when standard output is a pipe, the address and key files as fields', async () => {
    const { dir, child, stop } = await start();
    const port = new URL(child.url).port;
    expect((await fetch(`${child.url}/health`)).status).toBe(200); // an access line among them
    expect(await stop()).toBe(0);

    const records = lines(child).map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}\n${child.output()}`);
      }
    });
    const find = (msg: RegExp) => records.find((r) => typeof r.msg === 'string' && msg.test(r.msg));
    expect(find(/^listening on /)).toMatchObject({
      level: 30,
      msg: `listening on ${child.url}`,
      url: child.url,
      console_url: `http://localhost:${port}/console/`,
    });
    expect(find(/^support console: /)).toMatchObject({ console_url: `http://localhost:${port}/console/` });
    expect(find(/^Created your first API keys/)).toMatchObject({
      public_key: expect.stringMatching(/^pk_live_[A-Za-z0-9]{32}$/),
      secret_key_file: join(dir, 'first-secret-key.txt'),
    });
    expect(find(/^Created the admin agent/)).toMatchObject({
      email: 'admin@ticketing.localhost',
      password_file: join(dir, 'first-admin-password.txt'),
    });
    // Neither secret reaches the log: both are in their 0600 files.
    expect(child.output()).not.toContain('sk_live_');
    const password = /^password: (\S+)$/m.exec(await readFile(join(dir, 'first-admin-password.txt'), 'utf8'))![1]!;
    expect(child.output()).not.toContain(password);
    // The stop is logged too, last.
    expect(find(/^stopping$/)).toMatchObject({ level: 30, signal: 'SIGTERM' });
    expect(records.at(-1)).toMatchObject({ level: 30, msg: 'stopped', ms: expect.any(Number) });
  });

  it('stay readable text at a terminal', async () => {
    const { child, stop } = await start({ terminal: true });
    const port = new URL(child.url).port;
    const text = lines(child);
    expect(text).toContain('Created your first API keys. The secret key is shown once and stored only as a hash.');
    expect(text.some((l) => /^ {2}public key \(widget, customers\): pk_live_[A-Za-z0-9]{32}$/.test(l))).toBe(true);
    expect(text.some((l) => /^ {2}secret key \(support, \/admin\): {3}sk_live_[A-Za-z0-9]{32}$/.test(l))).toBe(true);
    expect(text).toContain('  email:    admin@ticketing.localhost');
    expect(text.some((l) => /^ {2}password: \S+$/.test(l))).toBe(true);
    expect(text).toContain(`support console: http://localhost:${port}/console/`);
    expect(text).toContain(`listening on ${child.url}`);
    await stop();
  });
});
