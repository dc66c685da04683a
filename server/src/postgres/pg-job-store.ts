import type postgres from 'postgres';
import type { Job, JobStore } from '../store/job-store.js';
import type { Database } from './database.js';

/**
 * A claim lasts this long: a job whose instance died while sending it is sent again by another after
 * this. Longer than any send may take (SMTP and webhook timeouts are well under a minute).
 */
const CLAIM_MS = 5 * 60_000;

/**
 * The outbox as rows shared by every instance. A claim takes due rows with FOR UPDATE SKIP LOCKED and
 * marks them claimed until a time: instances polling together never take the same job, and a job held
 * by an instance that died is free again when its claim runs out. Times come from the server's clock,
 * as in the JSON store (tests move it).
 */
export class PgJobStore implements JobStore {
  readonly holdsUnstored = false;

  constructor(private readonly db: Database) {}

  async add(job: Job) {
    // Inside a request's unit it goes out with the commit: nothing waits for its answer.
    await this.db.later(
      (sql) => sql`INSERT INTO outbox_jobs (id, job, next_attempt_at)
        VALUES (${job.id}, ${sql.json(job as unknown as postgres.JSONValue)}, ${job.next_attempt_at})`,
    );
  }

  async claimDue(now: Date, limit: number): Promise<Job[]> {
    if (limit <= 0) return [];
    const at = now.toISOString();
    const until = new Date(now.getTime() + CLAIM_MS).toISOString();
    const rows = await this.db.sql<{ job: Job }[]>`
      UPDATE outbox_jobs SET claimed_until = ${until}
      WHERE id IN (
        SELECT id FROM outbox_jobs
        WHERE next_attempt_at <= ${at} AND (claimed_until IS NULL OR claimed_until < ${at})
        ORDER BY next_attempt_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING job`;
    return rows.map((r) => r.job);
  }

  async remove(id: string) {
    await this.db.sql`DELETE FROM outbox_jobs WHERE id = ${id}`;
  }

  async save(job: Job) {
    await this.db.sql`UPDATE outbox_jobs
      SET job = ${this.db.sql.json(job as unknown as postgres.JSONValue)}, next_attempt_at = ${job.next_attempt_at}, claimed_until = NULL
      WHERE id = ${job.id}`;
  }

  async dueNow(id: string, now: Date): Promise<Job | undefined> {
    const at = now.toISOString();
    // The stored job keeps its next_attempt_at in step with the column the claim reads.
    const rows = await this.db.sql<{ job: Job }[]>`
      UPDATE outbox_jobs
      SET next_attempt_at = ${at}, job = jsonb_set(job, '{next_attempt_at}', to_jsonb(${at}::text))
      WHERE id = ${id} AND (claimed_until IS NULL OR claimed_until < ${at})
      RETURNING job`;
    return rows[0]?.job;
  }

  async pending(): Promise<Job[]> {
    const rows = await this.db.sql<{ job: Job }[]>`SELECT job FROM outbox_jobs ORDER BY next_attempt_at, id`;
    return rows.map((r) => r.job);
  }
}
