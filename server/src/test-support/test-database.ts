import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

// Declared here, beside inject(), so every program that imports the test support sees it (demo-site too).
declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server's URL (its `postgres` database): each test server gets a database of its own there. */
    postgresAdminUrl: string;
  }
}

/** The database holding the migrated schema that every test database is copied from. */
export const TEMPLATE_DATABASE = 'ticketing_test_template';

/** Which store the tests run on: the vitest project `postgres` sets TICKETING_TEST_STORE. */
export const testStore = (): 'json' | 'postgres' =>
  process.env.TICKETING_TEST_STORE === 'postgres' ? 'postgres' : 'json';

let admin: postgres.Sql | undefined;
const adminSql = () => (admin ??= postgres(inject('postgresAdminUrl'), { max: 2, onnotice: () => {} }));

function databaseUrl(database: string) {
  const u = new URL(inject('postgresAdminUrl'));
  u.pathname = `/${database}`;
  return u.toString();
}

/** How the test databases are named: dropped by name at the end of a run (postgres-setup.ts). */
export const TEST_DATABASE_NAME = /^t_[0-9a-f]{16}$/;

async function copyTemplate(): Promise<{ name: string; url: string }> {
  const name = `t_${randomBytes(8).toString('hex')}`;
  await adminSql().unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  return { name, url: databaseUrl(name) };
}

/**
 * The next test database, copied while the test that took the last one runs. A copy of the template
 * is a tenth of a second of the database's CPU but half a second and more of waiting on a loaded
 * two-core machine, which each of the run's few hundred test servers used to wait before it started.
 * The spare is the template's copy as any other (nothing else is done to it); one is left when the
 * worker ends, dropped with the run's others (postgres-setup.ts).
 */
let spare: Promise<{ name: string; url: string }> | undefined;

/** A new database with the schema (copied from the template), for one test server and its restarts. */
export async function createTestDatabase(): Promise<{ name: string; url: string }> {
  const next = spare ?? copyTemplate();
  spare = copyTemplate();
  // A failed copy is told to the test that takes it, not as an unhandled rejection now.
  spare.catch(() => {});
  return next;
}

export async function dropTestDatabase(name: string) {
  await adminSql().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A connection to a test database, for tests that read what is stored without the server. */
export function openTestDatabase(url: string) {
  return postgres(url, { max: 2, onnotice: () => {} });
}

const nameOf = (url: string) => new URL(url).pathname.slice(1);

/**
 * Makes a test database refuse every connection, and ends those it has: what a server sees when its
 * database goes away (a network cut, a stopped PostgreSQL). `reopen` lets connections in again.
 */
export async function cutOffTestDatabase(url: string) {
  const name = nameOf(url);
  await adminSql().unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await adminSql()`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
}

export async function reopenTestDatabase(url: string) {
  await adminSql().unsafe(`ALTER DATABASE ${nameOf(url)} ALLOW_CONNECTIONS true`);
}
