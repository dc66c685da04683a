// Errors that say the storage cannot be used right now, not that the request is wrong: the request
// answers 503 `unavailable` and a retry later can succeed.

/** The file system cannot take a write to the data directory. */
const DISK = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE']);

/** The code of what a Database throws at once while it knows its database is gone. */
export const DATABASE_GONE = 'DATABASE_UNREACHABLE';

/** The code of a statement a watchdog gave up on: no answer came (a silent network, postgres/answer-watchdog.ts). */
export const DATABASE_SILENT = 'DATABASE_SILENT';

/** Whether `err` is that: no statement was tried, none is waited for. */
export const databaseKnownGone = (err: unknown) => (err as { code?: unknown } | null)?.code === DATABASE_GONE;

/**
 * The database cannot be reached: the network (Node's codes), the driver's own (a connection closed,
 * ended or timed out, or no answer came), or PostgreSQL's (class 08, a server shutting down or starting up, an admin or a
 * pooler ending the session, no free connection), and DATABASE_GONE.
 */
const DATABASE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  DATABASE_GONE,
  DATABASE_SILENT,
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01', // admin_shutdown: pg_terminate_backend, or a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/** What cannot be used, when `err` says so: the data directory's disk or the database. */
export function unavailableStore(err: unknown): 'disk' | 'database' | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (DISK.has(code)) return 'disk';
  if (DATABASE.has(code)) return 'database';
  return undefined;
}

/**
 * PostgreSQL aborted the transaction to let a concurrent one through: a deadlock (40P01) or a
 * serialization failure (40001). Nothing of it was stored and the same request again can succeed
 * (postgres/migrations.ts, schema 8, keeps the known crossing writes from deadlocking at all).
 */
export const conflictingWrite = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
};

/**
 * A statement ran longer than `statement_timeout` (or was cancelled): 57014. The database is there and
 * answers, so it is not an outage (postgres/database.ts must not take the database for gone); this one
 * request answers 503 and the next one may be fine.
 */
export const statementTimedOut = (err: unknown) => (err as { code?: unknown } | null)?.code === '57014';
