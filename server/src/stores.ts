import { join } from 'node:path';
import type { Logger } from 'pino';
import { FileFeedbackStore, type FeedbackStore } from './helpcentre/feedback-store.js';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { LocalBus, type LiveBus } from './live/bus.js';
import { ConfigKeyStore } from './keys/key-store.js';
import type { OutboxEntry, WebhookLogEntry } from './model/index.js';
import { soleLeader, type Leadership } from './scheduler/leadership.js';
import { AppendLog } from './store/append-log.js';
import { openConfigFile } from './store/config-file.js';
import type { ConfigStore } from './store/config-store.js';
import { FileJobStore } from './store/file-job-store.js';
import { FileTicketStore } from './store/file-ticket-store.js';
import type { JobStore } from './store/job-store.js';
import type { KeyStore } from './store/key-store.js';
import { FileSessionStore } from './store/file-session-store.js';
import type { SessionStore } from './store/session-store.js';
import type { AuditStore, LogStore } from './store/log-store.js';
import { FileAuditLog } from './store/file-audit-log.js';
import type { FileStore, TicketStore } from './store/ticket-store.js';
import { orderedWrites, type UnitOfWork } from './store/unit-of-work.js';

/**
 * Every store the server runs on, from one place: JSON files in the data directory (below), or
 * PostgreSQL shared by several instances (postgres/open-stores.ts). The features see only these
 * interfaces.
 */
export interface Stores {
  configStore: ConfigStore;
  keys: KeyStore;
  /** Agents' console sessions and failed sign-ins. */
  sessions: SessionStore;
  live: TicketStore & FileStore;
  test: TicketStore & FileStore;
  audit: AuditStore;
  webhookLog: LogStore<WebhookLogEntry>;
  /** Answers to "Was this helpful?" under KB articles. */
  kbFeedback: FeedbackStore;
  jobs: JobStore;
  /** Deliveries given up or held back. */
  outboxLog: LogStore<OutboxEntry>;
  rateLimiter: RateLimiter;
  /** How a request's writes are made one unit (store/unit-of-work.ts). */
  unit: UnitOfWork;
  leadership: Leadership;
  /** How live events (/v1/events) reach the listeners of every instance. */
  liveBus: LiveBus;
  /** For /ready: throws when the store cannot be used; undefined: the data directory's own probe. */
  probe: (() => Promise<void>) | undefined;
  /** Where the data is, for the log (a path, or the database's URL without its password). */
  location: string;
  /** Lets go of what the stores hold, after the ticket stores are closed. */
  close(): Promise<void>;
  /** Work started once the port is open, in the background (PostgreSQL: the vacuum after a migration). */
  listening?: () => void;
}

/** The stores of one data directory. */
export async function openFileStores(
  dataDir: string,
  envKeys: string[],
  clock: () => Date,
  logger: Logger,
): Promise<Stores> {
  const configStore = await openConfigFile(dataDir);
  const [live, test, audit, webhookLog, outboxLog, jobs, sessions, kbFeedback] = await Promise.all([
    FileTicketStore.open(dataDir, 'live'),
    FileTicketStore.open(dataDir, 'test'),
    FileAuditLog.open(join(dataDir, 'audit.jsonl')),
    AppendLog.open<WebhookLogEntry>(join(dataDir, 'webhook_log.jsonl')),
    AppendLog.open<OutboxEntry>(join(dataDir, 'outbox_log.jsonl')),
    FileJobStore.open(dataDir, logger),
    FileSessionStore.open(dataDir),
    FileFeedbackStore.open(join(dataDir, 'kb_feedback.jsonl')),
  ]);
  // The search indexes are built after the port opens (store/search-index.ts): the log says when.
  const opened = performance.now();
  void Promise.all([live.searchReady(), test.searchReady()]).then(async () =>
    logger.info(
      { ms: Math.round(performance.now() - opened), tickets: (await live.count({})) + (await test.count({})) },
      'search index ready',
    ),
  );
  return {
    configStore,
    keys: new ConfigKeyStore(configStore, envKeys),
    sessions,
    live,
    test,
    audit,
    webhookLog,
    kbFeedback,
    jobs,
    outboxLog,
    rateLimiter: new MemoryRateLimiter(() => clock().getTime()),
    unit: orderedWrites,
    leadership: soleLeader,
    liveBus: new LocalBus(),
    probe: undefined,
    location: dataDir,
    async close() {
      await Promise.all([audit.close(), webhookLog.close(), outboxLog.close(), kbFeedback.close()]);
    },
  };
}
