import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config/config.js';
import type { Stores } from '../stores.js';
import { ChangeFeed } from './change-feed.js';
import { Database, redactedUrl } from './database.js';
import { migrate } from './migrations.js';
import { PgConfigStore } from './pg-config-store.js';
import { PgFeedbackStore } from './pg-feedback-store.js';
import { PgJobStore } from './pg-job-store.js';
import { PgKeyStore } from './pg-key-store.js';
import { PgLeadership } from './pg-leadership.js';
import { PgLiveBus } from './pg-live-bus.js';
import { PgAuditLog, PgLog } from './pg-log.js';
import { PgSessionStore } from './pg-session-store.js';
import { PgRateLimiter } from './pg-rate-limiter.js';
import { PgTicketStore } from './pg-ticket-store.js';
import { VacuumAfterMigration } from './vacuum-after-migration.js';

/**
 * Every store in one PostgreSQL database (TICKETING_DATABASE_URL): connects (waiting while the
 * database comes up), migrates the schema under its lock, and opens the stores on one pool.
 */
export async function openPostgresStores(
  config: DatabaseConfig,
  envKeys: string[],
  clock: () => Date,
  logger: Logger,
  print: (line: string) => void,
): Promise<Stores> {
  const db = await Database.connect(config, { waiting: print, logger });
  let feed: ChangeFeed | undefined;
  try {
    const { from, to, vacuumDue } = await migrate(db.sql);
    if (from !== to) logger.info({ from, to }, 'database schema migrated');
    await PgTicketStore.refreshRows(db); // rows of schema version 1 (nothing to do once done: a partial index finds none)
    const configStore = await PgConfigStore.open(db, logger);
    // Every write to a ticket's row, as each instance hears it: what lets a held ticket be served as is.
    const tickets: Partial<Record<string, PgTicketStore>> = {};
    feed = ChangeFeed.open(db, (mode, id, version) => tickets[mode]?.heard(id, version));
    const rateLimiter = new PgRateLimiter(db, () => clock().getTime(), feed);
    const leadership = new PgLeadership(db, rateLimiter, () => clock().getTime());
    const live = (tickets.live = new PgTicketStore(db, 'live', feed));
    const test = (tickets.test = new PgTicketStore(db, 'test', feed));
    const opened = feed;
    const vacuum = new VacuumAfterMigration(db, vacuumDue, logger);
    const liveBus = await PgLiveBus.open(db, (mode, id, updatedAt) =>
      (mode === 'live' ? live : test).changed(id, updatedAt),
    );
    return {
      configStore,
      keys: new PgKeyStore(db, envKeys),
      sessions: new PgSessionStore(db),
      live,
      test,
      audit: new PgAuditLog(db),
      webhookLog: new PgLog(db, 'webhook'),
      kbFeedback: new PgFeedbackStore(db),
      jobs: new PgJobStore(db),
      outboxLog: new PgLog(db, 'outbox'),
      rateLimiter,
      unit: db.unit,
      leadership,
      liveBus,
      probe: () => db.probe(),
      location: redactedUrl(config.url),
      listening: () => {
        vacuum.start();
        live.countWords();
        test.countWords();
      },
      async close() {
        await vacuum.close();
        await leadership.close();
        await configStore.close();
        await opened.close();
        await db.close();
      },
    };
  } catch (err) {
    await feed?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}
