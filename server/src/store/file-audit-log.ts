import { auditMatches, type AuditEntry, type AuditFilter } from '../model/index.js';
import { AppendLog } from './append-log.js';
import type { AuditStore } from './log-store.js';

/** data/audit.jsonl: appends as every log; a search reads the whole file (filters reach past the newest 500). */
export class FileAuditLog implements AuditStore {
  private constructor(private readonly log: AppendLog<AuditEntry>) {}

  static async open(path: string) {
    return new FileAuditLog(await AppendLog.open<AuditEntry>(path));
  }

  append(entry: AuditEntry) {
    return this.log.append(entry);
  }

  recent(limit: number) {
    return this.log.recent(limit);
  }

  search(filter: AuditFilter, limit: number) {
    const before = filter.before;
    return this.log.scan(auditMatches(filter), limit, before === undefined ? undefined : (e) => e.id === before);
  }

  prune(before: string) {
    return this.log.prune(before);
  }

  close() {
    return this.log.close();
  }
}
