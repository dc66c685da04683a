import type postgres from 'postgres';
import type { AuditEntry, AuditFilter } from '../model/index.js';
import type { AuditStore, LogStore } from '../store/log-store.js';
import type { Database } from './database.js';

/**
 * An append-only log as rows of one table, told apart by name (audit, webhook, outbox). An entry
 * appended during a request is part of its transaction: the audit entry of a ticket change is stored
 * with the change or not at all.
 */
export class PgLog<T> implements LogStore<T> {
  constructor(
    protected readonly db: Database,
    readonly name: string,
  ) {}

  async append(entry: T): Promise<void> {
    // Inside a request's unit it goes out with the commit: nothing waits for its answer.
    await this.db.later(
      (sql) => sql`INSERT INTO logs (log, entry) VALUES (${this.name}, ${sql.json(entry as postgres.JSONValue)})`,
    );
  }

  async recent(limit: number): Promise<T[]> {
    const sql = await this.db.q();
    const rows = await sql<{ entry: T }[]>`
      SELECT entry FROM logs WHERE log = ${this.name} ORDER BY seq DESC LIMIT ${limit}`;
    return rows.map((r) => r.entry);
  }

  async prune(before: string): Promise<number> {
    const sql = await this.db.q();
    const { count } = await sql`DELETE FROM logs WHERE log = ${this.name} AND entry->>'at' < ${before}`;
    return count;
  }

  close() {
    return Promise.resolve();
  }
}

/** The audit log's rows, searched in SQL (the filters of model/logs.ts auditMatches, the cursor by seq). */
export class PgAuditLog extends PgLog<AuditEntry> implements AuditStore {
  constructor(db: Database) {
    super(db, 'audit');
  }

  async search(f: AuditFilter, limit: number): Promise<AuditEntry[]> {
    const sql = await this.db.q();
    const none = sql``;
    const actor = f.actor;
    const rows = await sql<{ entry: AuditEntry }[]>`
      SELECT entry FROM logs WHERE log = 'audit'
      ${
        actor !== undefined
          ? sql`AND (entry->'actor'->>'id' = ${actor} OR entry->'actor'->>'prefix' = ${actor}
              OR entry->'actor'->>'kind' = ${actor.toLowerCase()}
              OR lower(entry->'actor'->>'name') = ${actor.toLowerCase()})`
          : none
      }
      ${f.action !== undefined ? sql`AND starts_with(entry->>'action', ${f.action})` : none}
      ${f.target !== undefined ? sql`AND entry->>'target' = ${f.target}` : none}
      ${f.from !== undefined ? sql`AND entry->>'at' >= ${f.from}` : none}
      ${f.to !== undefined ? sql`AND entry->>'at' < ${f.to}` : none}
      ${
        f.before !== undefined
          ? sql`AND seq < (SELECT seq FROM logs WHERE log = 'audit' AND entry->>'id' = ${f.before})`
          : none
      }
      ORDER BY seq DESC LIMIT ${limit}`;
    return rows.map((r) => r.entry);
  }
}
