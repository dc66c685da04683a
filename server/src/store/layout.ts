/**
 * The data directory's own files, beside the tickets, configuration and logs: named once here for
 * the server, the backup (which leaves the process's own files out) and the CLI.
 */
export const LAYOUT = {
  /** The pid of the server that owns the directory (store/lock.ts). */
  lock: 'LOCK',
  /** The format version of the directory's layout (store/data-format.ts). */
  format: 'FORMAT',
  /** The running server's local control channel: a Unix socket, 0600 (control/). */
  controlSocket: 'control.sock',
  /** What /ready writes and removes to prove the directory takes writes (health/). */
  readyProbe: 'ready.probe',
  /** Backups taken before a migration, and the links of a snapshot in progress (backup/). */
  backups: 'backups',
  /** Written by `ticketing migrate`: the data now lives in PostgreSQL, this directory is frozen (datadir/moved.ts). */
  moved: 'MOVED-TO-POSTGRES',
} as const;
