import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AppendLog } from '../store/append-log.js';
import { makeDir, removeStaleTemps, unlinkDurable, writeFileDurable } from '../store/durable-write.js';
import { newId } from '../model/index.js';
import type { JobKind, KeyMode, OutboxEntry, SettledState } from '../model/index.js';
import type { LogStore } from '../store/log-store.js';

export type { JobKind, OutboxEntry, SettledState };

export interface Job<P = unknown> {
  id: string;
  kind: JobKind;
  /** Always live: test mode sends nothing (jobs stored before modes were recorded have none). */
  mode?: KeyMode;
  payload: P;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  last_error: string | null;
}

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
export const OUTBOX_CONCURRENCY = 4;

/**
 * Durable delivery queue: data/outbox/<id>.json, one file per pending job, written (fsynced) before
 * the request that caused it is answered. Jobs are sent in the background, retried with backoff, and
 * survive a restart; a sent job's file is removed, a job out of retries is logged and removed.
 */
export class Outbox {
  private jobs = new Map<string, Job>();
  private senders = new Map<JobKind, Sender>();
  private running: Promise<void> | undefined;
  private again = false;
  private inFlight = new Set<Job>();
  /** Set by stop(): no new sends; 'closed' once stop() has recorded what was in flight. */
  private stopped: false | 'stopping' | 'closed' = false;

  private constructor(
    private readonly dir: string,
    private readonly settled: LogStore<OutboxEntry>,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  static async open(dataDir: string, clock: () => Date, logger: Logger): Promise<Outbox> {
    const dir = join(dataDir, 'outbox');
    await makeDir(dir);
    await removeStaleTemps(dir);
    const settled = await AppendLog.open<OutboxEntry>(join(dataDir, 'outbox_log.jsonl'));
    const outbox = new Outbox(dir, settled, clock, logger);
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        const job = JSON.parse(await readFile(join(dir, name), 'utf8')) as Job;
        outbox.jobs.set(job.id, job);
      } catch {
        logger.error({ file: join(dir, name) }, 'outbox: unreadable job file left in place');
      }
    }
    return outbox;
  }

  handle(kind: JobKind, sender: Sender) {
    this.senders.set(kind, sender);
  }

  get pending(): Job[] {
    return [...this.jobs.values()];
  }

  /**
   * Stores the job durably, then starts sending in the background. In test mode nothing is sent: the
   * outbox only records what would have gone (a staging site wired with test keys must not mail real
   * people or call real endpoints). If the disk refuses the job, it is still sent from memory (and its
   * retries recorded when the disk takes writes again): the request that caused it has already stored
   * its ticket and will be answered as a success.
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
      await writeFileDurable(this.path(job.id), JSON.stringify(job));
    } catch (err) {
      this.logger.error({ job: job.id, kind, err }, 'outbox: could not store the job; sending it from memory');
    }
    this.jobs.set(job.id, job);
    void this.process();
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
    const queued = [...this.jobs.values()]
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
        const now = this.clock().getTime();
        const due = [...this.jobs.values()].filter((j) => Date.parse(j.next_attempt_at) <= now);
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
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async attempt(job: Job) {
    const sender = this.senders.get(job.kind);
    if (!sender) return;
    job.attempts++;
    this.inFlight.add(job);
    try {
      await sender(job);
      if (this.stopped === 'closed') return; // recorded by stop(): sent again after the restart
      this.jobs.delete(job.id);
      await unlinkDurable(this.path(job.id));
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
        this.jobs.delete(job.id);
        await unlinkDurable(this.path(job.id)).catch(() => {});
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
      await writeFileDurable(this.path(job.id), JSON.stringify(job)).catch((e: unknown) =>
        this.logger.error({ job: job.id, err: e }, 'outbox: could not record the retry'),
      );
    } finally {
      this.inFlight.delete(job);
    }
  }

  /**
   * For shutdown: starts no more sends, gives those in flight `graceMs` to end, and records the ones
   * still on their way as an attempt cut short, due at once: after the restart they are sent again
   * (a receiver may see one twice; none is lost). Queued jobs are on disk already.
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
        return writeFileDurable(this.path(job.id), JSON.stringify(job)).catch((err: unknown) =>
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

  private path(id: string) {
    return join(this.dir, `${id}.json`);
  }
}
