import type { JobKind, KeyMode } from '../model/index.js';

/** A mail or webhook delivery waiting in the outbox. */
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

/**
 * Where the outbox keeps its jobs: files in data/outbox (store/file-job-store.ts), or a table shared
 * by every instance (postgres/pg-job-store.ts). A claimed job is this sender's until it is removed or
 * saved, so a job is sent by one instance however many poll.
 */
export interface JobStore {
  /**
   * Whether a job whose add() failed is still held, and sent, from memory (the JSON files: the ticket
   * is stored already). A transactional store says no: the failed add fails the request's transaction.
   */
  readonly holdsUnstored: boolean;
  /** Stores a new job durably (in the current unit of work: with the ticket that caused it). */
  add(job: Job): Promise<void>;
  /** Up to `limit` jobs due at `now` that no one is sending, now claimed by the caller. */
  claimDue(now: Date, limit: number): Promise<Job[]>;
  /** A job that was sent, or given up: gone. */
  remove(id: string): Promise<void>;
  /** A job's new state (attempts, next attempt, last error), released for the next claim. */
  save(job: Job): Promise<void>;
  /**
   * Makes a waiting job due at `now` ("retry now") and answers it; undefined when there is no such job, or it is being
   * sent right now (claimed), so a delivery under way is never sent twice.
   */
  dueNow(id: string, now: Date): Promise<Job | undefined>;
  /** Every job waiting, oldest first (r=outbox, /ready). */
  pending(): Promise<Job[]>;
}
