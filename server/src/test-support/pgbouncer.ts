import { spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentAtConnect } from '../postgres/database.js';
import { NOBODY } from './other-user.js';
import { freePort, untilListening } from './smtp.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';

/** The settings the server sends when it connects, which PgBouncer is told to let through (docs/deploy.md). */
const IGNORED = Object.keys(sentAtConnect(0));

export interface TestPgBouncer {
  /** postgres://… of the database through the pooler, with the database's own user and password. */
  url: string;
  close(): Promise<void>;
}

/**
 * Debian's PgBouncer on a free loopback port in front of one database, with a throwaway
 * configuration: `pool_mode` and any other line of its [pgbouncer] section as given. PgBouncer
 * refuses to run as root: as root it runs as nobody.
 */
export async function startPgBouncer(databaseUrl: string, settings: Record<string, string>): Promise<TestPgBouncer> {
  const target = new URL(databaseUrl);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const database = target.pathname.slice(1);
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-pgbouncer-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  // The database's password: readable by PgBouncer's user alone (nobody, when we are root).
  const root = process.getuid?.() === 0;
  await writeFile(join(dir, 'users.txt'), `"${user}" "${password}"\n`, { mode: 0o600 });
  if (root) await chown(join(dir, 'users.txt'), NOBODY.uid, NOBODY.gid);
  const lines = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    auth_type: 'plain',
    auth_file: join(dir, 'users.txt'),
    max_client_conn: '500',
    ignore_startup_parameters: IGNORED.join(','),
    ...settings,
  };
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    `[databases]\n${database} = host=${target.hostname} port=${target.port} dbname=${database}\n` +
      `[pgbouncer]\n${Object.entries(lines)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
    { mode: 0o644 },
  );
  const proc = spawn(PGBOUNCER, [...(root ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  proc.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  let failed: Error | undefined;
  proc.once('error', (err) => (failed = err));
  const close = async () => {
    if (proc.exitCode === null && proc.signalCode === null && !failed) {
      const exited = new Promise((ok) => proc.once('exit', ok));
      proc.kill('SIGTERM');
      // A PgBouncer that waits for its clients to leave is not waited for.
      const killing = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killing);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilListening(
      port,
      'pgbouncer',
      () => failed ?? (proc.exitCode !== null || proc.signalCode !== null ? new Error('pgbouncer exited') : undefined),
    );
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}: ${log}`, { cause: err });
  }
  const through = new URL(databaseUrl);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  return { url: through.toString(), close };
}
