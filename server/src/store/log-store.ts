import type { AuditEntry, AuditFilter } from '../model/index.js';

/**
 * An append-only log (the audit log, webhook attempts, settled deliveries). The JSON-lines file
 * (store/append-log.ts) is one implementation; a database table can be another.
 */
export interface LogStore<T> {
  /** Resolves once the entry is durable. */
  append(entry: T): Promise<void>;
  /** The newest `limit` entries, newest first. */
  recent(limit: number): Promise<T[]>;
  /** Removes the entries whose `at` is before `before` (an ISO time); resolves to how many (retention/). */
  prune(before: string): Promise<number>;
  close(): Promise<void>;
}

/** The audit log, searchable: filters and a cursor over the whole log, not only its newest entries. */
export interface AuditStore extends LogStore<AuditEntry> {
  /** Up to `limit` entries passing `filter`, newest first, older than `filter.before` when given. */
  search(filter: AuditFilter, limit: number): Promise<AuditEntry[]>;
}
