import type { Logger } from 'pino';
import type { RetentionDays } from '../config/config.js';
import type { FeedbackStore } from '../helpcentre/feedback-store.js';
import { POPULAR_DAYS } from '../kb/popular.js';
import type { LogStore } from '../store/log-store.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Keeps the audit, webhook-attempt and delivery logs from growing without end (issue 33): entries
 * older than their log's retention are removed, on either store; so are the articles' views older
 * than the popularity window (POPULAR_DAYS: nothing reads them after), the votes beside them stay. Run by the scheduler's leader, at
 * most once an hour by the clock (so tests move the clock instead of waiting).
 */
export class LogRetention {
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    readonly logs: { audit: LogStore<unknown>; webhookLog: LogStore<unknown>; outboxLog: LogStore<unknown> },
    private readonly days: RetentionDays,
    private readonly clock: () => Date,
    private readonly logger: Logger,
    private readonly kbFeedback: Pick<FeedbackStore, 'pruneViews'>,
  ) {}

  /** Prunes each log when an hour has passed since the last time; what each dropped. */
  async prune(): Promise<Record<keyof RetentionDays | 'kbViews', number> | undefined> {
    const now = this.clock().getTime();
    if (now - this.last < HOUR) return undefined;
    this.last = now;
    const dropped = { audit: 0, webhookLog: 0, outboxLog: 0, kbViews: 0 };
    for (const name of ['audit', 'webhookLog', 'outboxLog'] as const) {
      if (this.days[name] === 0) continue;
      dropped[name] = await this.logs[name].prune(new Date(now - this.days[name] * DAY).toISOString());
    }
    dropped.kbViews = await this.kbFeedback.pruneViews(new Date(now - POPULAR_DAYS * DAY).toISOString());
    if (dropped.audit || dropped.webhookLog || dropped.outboxLog || dropped.kbViews)
      this.logger.info({ dropped }, 'retention: old log entries removed');
    return dropped;
  }
}
