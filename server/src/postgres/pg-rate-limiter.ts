import type { RateLimiter } from '../http/rate-limit.js';
import { currentUnit } from '../store/unit-of-work.js';
import type { ChangeFeed } from './change-feed.js';
import { CoalescedReads } from './coalesced-reads.js';
import type { Database, Sql } from './database.js';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Fixed windows in one table that every instance counts in, so a limit holds however a balancer
 * spreads a client's requests. One statement per hit: the upsert counts only while the window has
 * room (or has run out), and tells by returning nothing that it had none. Times are the server's
 * clock in milliseconds, as in the memory limiter.
 */
export class PgRateLimiter implements RateLimiter {
  /**
   * Windows as stored, for wait(): asked before every authenticated request (the failed-key throttle),
   * so the requests that arrive while one statement runs share the next.
   */
  private readonly windowsOf = new CoalescedReads(async (buckets: string[]) => {
    // On the change feed's connection, when there is one: the read is then also the barrier that
    // lets the request's ticket be served from memory without a statement of its own. When that one
    // connection fails or falls silent (the watchdog's bound) while the pool's answer, the pool reads.
    const read = (sql: Sql) => sql<{ bucket: string; count: string; reset_at: string }[]>`
      SELECT bucket, count, reset_at FROM rate_limits WHERE bucket = ANY(${buckets}::text[])`;
    const rows =
      this.feed && this.feed.now().epoch
        ? await this.feed.read(read).catch(() => read(this.db.sql))
        : await read(this.db.sql);
    return new Map(rows.map((r) => [r.bucket, { count: Number(r.count), resetAt: Number(r.reset_at) }]));
  });

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
    private readonly feed?: ChangeFeed,
  ) {}

  async hit(bucket: string, limit: number, windowMs: number, cost = 1): Promise<number> {
    const now = this.now();
    if (cost > limit) return seconds(windowMs);
    const sql = await this.db.q();
    const counted = await sql`
      INSERT INTO rate_limits (bucket, count, reset_at) VALUES (${bucket}, ${cost}, ${now + windowMs})
      ON CONFLICT (bucket) DO UPDATE SET
        count = CASE WHEN rate_limits.reset_at <= ${now} THEN ${cost} ELSE rate_limits.count + ${cost} END,
        reset_at = CASE WHEN rate_limits.reset_at <= ${now} THEN ${now + windowMs} ELSE rate_limits.reset_at END
      WHERE rate_limits.reset_at <= ${now} OR rate_limits.count + ${cost} <= ${limit}
      RETURNING count`;
    if (counted.length) return 0;
    const [row] = await sql<{ reset_at: string }[]>`SELECT reset_at FROM rate_limits WHERE bucket = ${bucket}`;
    return seconds((row ? Number(row.reset_at) : now + windowMs) - now);
  }

  async wait(bucket: string, limit: number): Promise<number> {
    const now = this.now();
    if (currentUnit()) {
      // Inside a write's transaction, which may have counted in this window itself.
      const sql = await this.db.q();
      const [row] = await sql<{ reset_at: string }[]>`
        SELECT reset_at FROM rate_limits WHERE bucket = ${bucket} AND reset_at > ${now} AND count >= ${limit}`;
      return row ? seconds(Number(row.reset_at) - now) : 0;
    }
    const window = await this.windowsOf.get(bucket);
    return window && window.resetAt > now && window.count >= limit ? seconds(window.resetAt - now) : 0;
  }

  async count(bucket: string, windowMs: number, cost = 1): Promise<void> {
    const now = this.now();
    const sql = await this.db.q();
    await sql`
      INSERT INTO rate_limits (bucket, count, reset_at) VALUES (${bucket}, ${cost}, ${now + windowMs})
      ON CONFLICT (bucket) DO UPDATE SET
        count = CASE WHEN rate_limits.reset_at <= ${now} THEN ${cost} ELSE rate_limits.count + ${cost} END,
        reset_at = CASE WHEN rate_limits.reset_at <= ${now} THEN ${now + windowMs} ELSE rate_limits.reset_at END`;
  }

  async windows(): Promise<number> {
    const [row] = await this.db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM rate_limits WHERE reset_at > ${this.now()}`;
    return row!.n;
  }

  /** Removes windows that have run out (the scheduler's leader calls it). */
  async sweep() {
    await this.db.sql`DELETE FROM rate_limits WHERE reset_at <= ${this.now()}`;
  }
}
