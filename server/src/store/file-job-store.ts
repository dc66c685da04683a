import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { makeDir, removeStaleTemps, unlinkDurable, writeFileDurable } from './durable-write.js';
import type { Job, JobStore } from './job-store.js';
import { KeyedMutex } from './keyed-mutex.js';
import { readFiles } from './read-files.js';

/**
 * data/outbox/<id>.json, one file per waiting job, fsynced before it resolves; every job is also held
 * in memory (one process owns the directory), so claims are a flag in memory.
 *
 * A job is claimable as soon as it is added, so a pass can send it while its file is still being
 * written. The writes of one job therefore go to disk in the order they were asked for: else a slow
 * first write could land after the failed attempt's (the disk forgetting the attempt) or after the
 * sent job's removal (the mail sent again after a restart).
 */
export class FileJobStore implements JobStore {
  private jobs = new Map<string, Job>();
  private claimed = new Set<string>();
  private writes = new KeyedMutex();
  readonly holdsUnstored = true;

  private constructor(private readonly dir: string) {}

  static async open(dataDir: string, logger: Logger): Promise<FileJobStore> {
    const dir = join(dataDir, 'outbox');
    await makeDir(dir);
    await removeStaleTemps(dir);
    const store = new FileJobStore(dir);
    // The ticket store's reader: batches of synchronous reads (one awaited readFile per job took
    // about 0.5 s per thousand jobs at start-up), on a second thread when there are many.
    const names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
    for await (const batch of readFiles(dir, names)) {
      for (let i = 0; i < batch.names.length; i++) {
        try {
          const job = JSON.parse(batch.text(i) ?? '') as Job;
          store.jobs.set(job.id, job);
        } catch {
          logger.error({ file: join(dir, batch.names[i]!) }, 'outbox: unreadable job file left in place');
        }
      }
    }
    return store;
  }

  /**
   * Held in memory even when the disk refuses it: the job is still sent from memory (and its retries
   * recorded when the disk takes writes again), since the request that caused it has stored its
   * ticket and will be answered as a success. The caller hears of the failure.
   */
  async add(job: Job) {
    this.jobs.set(job.id, job);
    await this.write(job);
  }

  claimDue(now: Date, limit: number) {
    const due: Job[] = [];
    for (const j of this.jobs.values()) {
      if (due.length >= limit) break;
      if (this.claimed.has(j.id) || Date.parse(j.next_attempt_at) > now.getTime()) continue;
      this.claimed.add(j.id);
      due.push(j);
    }
    return Promise.resolve(due);
  }

  async remove(id: string) {
    this.jobs.delete(id);
    this.claimed.delete(id);
    await this.writes.run(id, () => unlinkDurable(this.path(id)));
  }

  async save(job: Job) {
    this.jobs.set(job.id, job);
    this.claimed.delete(job.id);
    await this.write(job);
  }

  async dueNow(id: string, now: Date) {
    const job = this.jobs.get(id);
    if (!job || this.claimed.has(id)) return undefined;
    job.next_attempt_at = now.toISOString();
    await this.write(job);
    return job;
  }

  pending() {
    return Promise.resolve([...this.jobs.values()]);
  }

  /** The job as it is now, written after the job's earlier writes. */
  private write(job: Job) {
    const data = JSON.stringify(job);
    return this.writes.run(job.id, () => writeFileDurable(this.path(job.id), data));
  }

  private path(id: string) {
    return join(this.dir, `${id}.json`);
  }
}
