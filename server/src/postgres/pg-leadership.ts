import type { Leadership } from '../scheduler/leadership.js';
import type { Database, Sql } from './database.js';
import type { PgRateLimiter } from './pg-rate-limiter.js';

// pg_try_advisory_lock(int, int): the pair names "the scheduler's lead" among this database's locks.
export const LOCK = [7_341_020, 18] as const;

/**
 * The scheduler's lead as a session advisory lock, held on a connection of its own. When the leader's
 * process dies its connection ends and PostgreSQL releases the lock; the next instance to ask takes
 * it. Each call asks PostgreSQL whether this session still holds it (a reconnected session does not),
 * rather than trusting a flag.
 */
export class PgLeadership implements Leadership {
  private readonly sql: Sql;

  constructor(
    private readonly db: Database,
    private readonly limiter: PgRateLimiter,
    private readonly now: () => number,
  ) {
    this.sql = db.single('ticketing-scheduler');
  }

  async lead(): Promise<boolean> {
    const [row] = await this.sql<{ leading: boolean }[]>`
      SELECT CASE WHEN EXISTS (
          SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
            AND classid = ${LOCK[0]} AND objid = ${LOCK[1]} AND objsubid = 2)
        THEN true ELSE pg_try_advisory_lock(${LOCK[0]}, ${LOCK[1]}) END AS leading`;
    return row!.leading;
  }

  async housekeeping() {
    await this.limiter.sweep();
    const cutoff = new Date(this.now() - 24 * 60 * 60 * 1000).toISOString();
    await this.db.sql`DELETE FROM idempotency_keys WHERE at <= ${cutoff}`;
  }

  async close() {
    await this.sql.end({ timeout: 2 }).catch(() => {});
  }
}
