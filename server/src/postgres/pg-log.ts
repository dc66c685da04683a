import type postgres from 'postgres';
import type { LogStore } from '../store/log-store.js';
import type { Database } from './database.js';

/**
 * An append-only log as rows of one table, told apart by name (audit, webhook, outbox). An entry
 * appended during a request is part of its transaction: the audit entry of a ticket change is stored
 * with the change or not at all.
 */
export class PgLog<T> implements LogStore<T> {
  constructor(
    private readonly db: Database,
    readonly name: string,
  ) {}

  async append(entry: T): Promise<void> {
    const sql = await this.db.q();
    await sql`INSERT INTO logs (log, entry) VALUES (${this.name}, ${sql.json(entry as postgres.JSONValue)})`;
  }

  async recent(limit: number): Promise<T[]> {
    const sql = await this.db.q();
    const rows = await sql<{ entry: T }[]>`
      SELECT entry FROM logs WHERE log = ${this.name} ORDER BY seq DESC LIMIT ${limit}`;
    return rows.map((r) => r.entry);
  }

  close() {
    return Promise.resolve();
  }
}
