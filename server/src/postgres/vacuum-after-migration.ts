import type { Logger } from 'pino';
import type { Database, Sql } from './database.js';
import { rewrittenSinceVacuum } from './migrations.js';

/**
 * The class of the session advisory lock the vacuum runs under: one instance vacuums a table, the others
 * starting meanwhile leave it to that one. Beside leadership's, the counts' and the view counts' (7_341_020-022).
 */
const VACUUM_LOCK = 7_341_023;

/**
 * `VACUUM (ANALYZE)` of the tables a step of the schema rewrote since they were last vacuumed
 * (rewrittenSinceVacuum, which the migration answers), on a connection of its own, started once the
 * port is open: requests are
 * served meanwhile (a VACUUM takes no lock a read or a write waits for), and the start-up does not wait
 * for it (18 s at a million tickets). Without it the rewrite's dead row versions stay until autovacuum
 * comes by, and index-only scans read the table for each (issue 32: a month's report at a million
 * tickets took 1.3 s instead of 0.25 s until then). Logged when it starts and ends.
 */
export class VacuumAfterMigration {
  private sql: Sql | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** The VACUUM under way, to cancel at close (a client that goes away does not stop it). */
  private statement: { cancel(): unknown } | undefined;

  constructor(
    private readonly db: Database,
    private readonly due: string[],
    private readonly logger: Logger,
  ) {}

  /** Starts it in the background; it never throws (a failure is logged, and the next start tries again). */
  start() {
    if (!this.due.length || this.closed) return;
    const sql = (this.sql = this.db.single('ticketing-vacuum'));
    this.running ??= this.run(sql).catch((err: unknown) => {
      if (!this.closed)
        this.logger.warn({ err }, 'vacuum after the schema migration failed; the next start tries again');
    });
  }

  private async run(sql: Sql) {
    // Statements on this connection may take their time: no timeout of the database's applies.
    await sql`SET statement_timeout = 0`;
    for (const table of this.due) {
      if (this.closed) return;
      const [lock] = await sql<{ ok: boolean }[]>`
        SELECT pg_try_advisory_lock(${VACUUM_LOCK}, hashtext(${table})) AS ok`;
      if (!lock!.ok) {
        this.logger.info({ table }, 'vacuum after the schema migration: another instance is at it');
        continue;
      }
      try {
        // Looked at again under the lock: an instance that held it may have vacuumed the table since.
        if (!(await rewrittenSinceVacuum(sql)).includes(table)) continue;
        this.logger.info({ table }, 'vacuum after the schema migration started');
        const started = performance.now();
        const statement = sql`VACUUM (ANALYZE) ${sql(table)}`;
        this.statement = statement;
        await statement;
        this.logger.info(
          { table, ms: Math.round(performance.now() - started) },
          'vacuum after the schema migration done',
        );
      } finally {
        this.statement = undefined;
        if (!this.closed) await sql`SELECT pg_advisory_unlock(${VACUUM_LOCK}, hashtext(${table}))`;
      }
    }
  }

  /** Cancels a VACUUM under way (the next start does it again) and closes the connection. */
  async close() {
    this.closed = true;
    this.statement?.cancel();
    await this.running;
    await this.sql?.end({ timeout: 2 }).catch(() => {});
  }
}
