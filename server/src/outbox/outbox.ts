import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { newId } from '../model/index.js';
import type { JobKind, KeyMode, OutboxEntry, SettledState } from '../model/index.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { LogStore } from '../store/log-store.js';
import { afterCommit } from '../store/unit-of-work.js';

export type { Job, JobKind, OutboxEntry, SettledState };

function summary(kind: JobKind, payload: unknown): Pick<OutboxEntry, 'to' | 'subject' | 'url' | 'event'> {
  const p = payload as { to?: string[]; subject?: string; url?: string; type?: string };
  return kind === 'mail'
    ? { to: p.to ?? null, subject: p.subject ?? null, url: null, event: null }
    : { to: null, subject: null, url: p.url ?? null, event: p.type ?? null };
}

/** Seconds to wait after attempt n (1-based) failed; past the end the job is given up. */
export const BACKOFF: Record<JobKind, number[]> = {
  // The first retry within 30 s, then slower, for more than 24 hours (API.md, "Mail").
  mail: [15, 30, 60, 120, 300, 600, 1800, 3600, 3600, 7200, 7200, 14400, 14400, 14400, 14400, 14400, 14400],
  // At least 5 attempts over at least 10 minutes, the first retry within 30 s (API.md, "Events").
  webhook: [10, 30, 120, 300, 900, 3600],
};

export type Sender = (job: Job) => Promise<void>;

/** Deliveries under way at once (the SMTP pool has fewer connections; mail waits for one there). */
const OUTBOX_CONCURRENCY = 4;

/** Jobs one pass claims at most (a burst after an outage goes out over several passes). */
const CLAIM = 100;

/**
 * Durable delivery queue: each job is stored (a file in data/outbox, or a row shared by every instance)
 * before the request that caused it is answered. Jobs are sent in the background, retried with backoff,
 * and survive a restart; a sent job is removed, a job out of retries is logged and removed. A job is
 * claimed before it is sent, so with several instances it is sent by one of them.
 */
export class Outbox {
  private senders = new Map<JobKind, Sender>();
  private running: Promise<void> | undefined;
  private again = false;
  private inFlight = new Set<Job>();
  /** Set by stop(): no new sends; 'closed' once stop() has recorded what was in flight. */
  private stopped: false | 'stopping' | 'closed' = false;

  constructor(
    private readonly jobs: JobStore,
    private readonly settled: LogStore<OutboxEntry>,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  handle(kind: JobKind, sender: Sender) {
    this.senders.set(kind, sender);
  }

  /** Every job waiting (on every instance). */
  pending(): Promise<Job[]> {
    return this.jobs.pending();
  }

  /**
   * Stores the job durably, then starts sending in the background once what the request wrote is
   * committed. In test mode nothing is sent: the outbox only records what would have gone (a staging
   * site wired with test keys must not mail real people or call real endpoints). If the JSON store's
   * disk refuses the job, it is still sent from memory: the request that caused it has already stored
   * its ticket and will be answered as a success. (In PostgreSQL the job is part of the request's
   * transaction: a refused job means no ticket either, and an error answer.)
   */
  async enqueue<P>(kind: JobKind, payload: P, mode: KeyMode): Promise<void> {
    if (mode === 'test') return this.hold(kind, payload, mode, 'suppressed_test', null);
    const now = this.clock().toISOString();
    const job: Job<P> = {
      id: newId('evt'),
      kind,
      mode,
      payload,
      attempts: 0,
      created_at: now,
      next_attempt_at: now,
      last_error: null,
    };
    try {
      await this.jobs.add(job);
    } catch (err) {
      if (!this.jobs.holdsUnstored) throw err;
      this.logger.error({ job: job.id, kind, err }, 'outbox: could not store the job; sending it from memory');
    }
    afterCommit(() => void this.process());
  }

  /**
   * "Retry now" for a delivery still waiting (after a failed attempt, before its next try), named by its
   * id or, for a webhook, by the event id of webhook_log: due at once, and a pass is started. Undefined
   * when nothing waits under that id (sent, given up, or being sent right now).
   */
  async retryNow(id: string): Promise<Job | undefined> {
    const job = (await this.jobs.pending()).find(
      (j) => j.id === id || (j.kind === 'webhook' && (j.payload as { event_id?: string }).event_id === id),
    );
    if (!job) return undefined;
    const due = await this.jobs.dueNow(job.id, this.clock());
    // Started once the request's unit ends: a pass must not run inside (and outlive) its transaction.
    if (due) afterCommit(() => void this.process());
    return due;
  }

  /** Records a delivery that is not sent (test mode, a limit), for /admin?r=outbox. */
  hold(kind: JobKind, payload: unknown, mode: KeyMode, state: SettledState, reason: string | null) {
    const now = this.clock().toISOString();
    const job: Job = {
      id: newId('evt'),
      kind,
      mode,
      payload,
      attempts: 0,
      created_at: now,
      next_attempt_at: now,
      last_error: reason,
    };
    return this.settled.append(this.entry(job, state));
  }

  /** Pending jobs, then what was settled, newest first. */
  async list(limit: number): Promise<OutboxEntry[]> {
    const queued = (await this.jobs.pending())
      .map((j) => this.entry(j, 'queued'))
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    return [...queued, ...(await this.settled.recent(limit))].slice(0, limit);
  }

  private entry(job: Job, state: OutboxEntry['state']): OutboxEntry {
    return {
      id: job.id,
      kind: job.kind,
      state,
      mode: job.mode ?? 'live',
      ...summary(job.kind, job.payload),
      attempts: job.attempts,
      next_attempt_at: state === 'queued' ? job.next_attempt_at : null,
      last_error: job.last_error,
      created_at: job.created_at,
      at: state === 'queued' ? job.created_at : this.clock().toISOString(),
    };
  }

  /** Sends every job that is due; one pass at a time, a call during a pass runs another after it. */
  process(): Promise<void> {
    if (this.stopped) return Promise.resolve(); // what is queued now goes out after the restart
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const due = await this.jobs.claimDue(this.clock(), CLAIM);
        if (due.length === CLAIM) this.again = true; // more may be due than one pass claims
        // A few at a time: a burst of due jobs (after an SMTP outage, a restart) must not open a
        // connection or a request per job at once. None is started once the outbox is stopping.
        const worker = async () => {
          for (let j = due.shift(); j && !this.stopped; j = due.shift()) {
            await this.attempt(j).catch((err: unknown) =>
              this.logger.error({ job: j!.id, err }, 'outbox: attempt failed'),
            );
          }
        };
        await Promise.all(Array.from({ length: OUTBOX_CONCURRENCY }, worker));
        // Claimed, not started (the outbox is stopping): released for the next start or another instance.
        for (const j of due.splice(0))
          await this.jobs
            .save(j)
            .catch((err: unknown) => this.logger.error({ job: j.id, err }, 'outbox: could not release a job'));
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => this.logger.error({ err }, 'outbox: a pass failed'))
      .finally(() => {
        this.running = undefined;
        // A call that came after the last check for more work, while this pass was ending (a few
        // microtasks), found it still running and only set `again`: it gets its pass now, and those
        // awaiting this one wait for that too. Without it, the job that call was for waited for the
        // scheduler's next tick (CI saw one mail of a burst wait so).
        if (this.again && !this.stopped) return this.process();
      });
    return this.running;
  }

  private async attempt(job: Job) {
    const sender = this.senders.get(job.kind);
    if (!sender) {
      await this.jobs.save(job);
      return;
    }
    job.attempts++;
    this.inFlight.add(job);
    try {
      await sender(job);
      if (this.stopped === 'closed') return; // recorded by stop(): sent again after the restart
      await this.jobs.remove(job.id);
    } catch (err) {
      if (this.stopped === 'closed') return;
      const delays = BACKOFF[job.kind];
      const delay = delays[job.attempts - 1];
      job.last_error = err instanceof Error ? err.message : String(err);
      if (delay === undefined) {
        this.logger.error(
          { job: job.id, kind: job.kind, attempts: job.attempts, error: job.last_error },
          'outbox: giving up',
        );
        await this.jobs.remove(job.id).catch(() => {});
        await this.settled
          .append(this.entry(job, 'failed'))
          .catch((e: unknown) => this.logger.error({ job: job.id, err: e }, 'outbox: could not record the failure'));
        return;
      }
      job.next_attempt_at = new Date(this.clock().getTime() + delay * 1000).toISOString();
      this.logger.warn(
        { job: job.id, kind: job.kind, attempts: job.attempts, retry_at: job.next_attempt_at, error: job.last_error },
        'outbox: will retry',
      );
      await this.jobs
        .save(job)
        .catch((e: unknown) => this.logger.error({ job: job.id, err: e }, 'outbox: could not record the retry'));
    } finally {
      this.inFlight.delete(job);
    }
  }

  /**
   * For shutdown: starts no more sends, gives those in flight `graceMs` to end, and records the ones
   * still on their way as an attempt cut short, due at once: after the restart they are sent again
   * (a receiver may see one twice; none is lost). Queued jobs are stored already.
   */
  async stop(graceMs: number) {
    this.stopped = 'stopping';
    const timer = new AbortController();
    await Promise.race([this.idle(), sleep(graceMs, undefined, { signal: timer.signal }).catch(() => {})]);
    timer.abort();
    const now = this.clock().toISOString();
    await Promise.all(
      [...this.inFlight].map((job) => {
        job.last_error = 'interrupted by shutdown';
        job.next_attempt_at = now;
        return this.jobs
          .save(job)
          .catch((err: unknown) =>
            this.logger.error({ job: job.id, err }, 'outbox: could not record the interrupted attempt'),
          );
      }),
    );
    this.stopped = 'closed';
  }

  /** Waits for a pass in progress (shutdown, tests). */
  async idle() {
    while (this.running) await this.running;
  }

  close() {
    return this.settled.close();
  }
}
