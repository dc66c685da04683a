import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type postgres from 'postgres';
import { arrivedAt } from '../store/request-arrival.js';
import { CoalescedReads } from './coalesced-reads.js';
import type { Database, Sql } from './database.js';

/** The channel on which every write to a ticket's row tells the instances (`mode id version`). */
const CHANNEL = 'ticketing_tickets';
const RELISTEN_MS = 500;
/**
 * A connection that only listens hears nothing of a silent network: when idle it is asked something
 * this often, a statement the watchdog (postgres/answer-watchdog.ts) bounds like the pool's. Found
 * silent, the connection is destroyed: the epoch ends (nothing held is trusted) and LISTEN is sent
 * again on a new one once the network answers.
 */
const PING_EVERY_MS = 5000;

/** What the feed had heard at one moment: compare it with the feed's later to know whether anything came between. */
export interface Heard {
  epoch: number;
  count: number;
}

/**
 * The tickets' changes as every instance hears them, on a connection of this instance's own that
 * LISTENs, and a barrier on that connection: the proof that lets a ticket held in memory be served
 * without asking the database whether it changed.
 *
 * Why the barrier holds. A writer's transaction queues its NOTIFY and, when it commits, signals every
 * listening backend before its COMMIT is answered (PostgreSQL's AtCommit_Notify), so before the writer's
 * 201 and before any request sent after that 201 arrives here. A statement sent on the listening
 * connection after that arrival is read by its backend after the signal, and the backend sends every
 * pending notification before its ReadyForQuery: once such a statement is answered, this process has
 * heard every change committed before the request arrived. A ticket held since a moment this feed had
 * heard nothing newer of, and of which nothing was heard since, is then the stored one.
 *
 * While the connection is down nothing can be heard: a new connection is a new epoch, and what was
 * held under an older epoch is not trusted (it is checked against the database as before).
 */
export class ChangeFeed {
  private epoch = 0;
  private listening = false;
  private count = 0;
  private closed = false;
  private relistening = false;
  /** When the newest barrier answered in this epoch was sent. */
  private barrierSentAt = -Infinity;
  private readonly barriers = new CoalescedReads<0, true>(async () => {
    await this.read((sql) => sql`SELECT 1`);
    return new Map([[0, true]]);
  }, 1);

  private readonly conn: Sql;
  private lastSentAt = performance.now();
  private readonly pinging: NodeJS.Timeout;

  private constructor(
    private readonly db: Database,
    private readonly heard: (mode: string, id: string, version: string | undefined) => void,
  ) {
    this.conn = db.own('ticketing-changes', {
      onnotify: (channel, payload) => {
        if (channel === CHANNEL) this.notified(payload);
      },
      onclose: () => this.lost(),
    });
    this.pinging = setInterval(() => {
      if (this.listening && performance.now() - this.lastSentAt >= PING_EVERY_MS)
        this.read((sql) => sql`SELECT 1`).catch(() => {});
    }, PING_EVERY_MS / 5).unref();
  }

  /** Opens the feed; `heard` is told of every change to a ticket's row, this instance's own included. */
  static open(db: Database, heard: (mode: string, id: string, version: string | undefined) => void) {
    const feed = new ChangeFeed(db, heard);
    // Not awaited: until LISTEN holds, every read is checked as before, and a start never waits on it.
    void feed.listen();
    return feed;
  }

  private notified(payload: string) {
    this.count++;
    const [mode, id, version] = payload.split(' ');
    if (mode && id) this.heard(mode, id, version || undefined);
  }

  /** The connection closed: nothing said meanwhile is heard; LISTEN again on a new one. */
  private lost() {
    this.listening = false;
    this.epoch++;
    this.barrierSentAt = -Infinity;
    if (!this.closed) void this.listen();
  }

  private async listen() {
    if (this.relistening) return;
    this.relistening = true;
    try {
      await this.listenLoop();
    } finally {
      this.relistening = false;
    }
  }

  private async listenLoop() {
    while (!this.closed) {
      try {
        await this.conn.unsafe(`LISTEN ${CHANNEL}`);
        this.epoch++;
        this.listening = true;
        return;
      } catch {
        if (this.closed) return;
        await sleep(RELISTEN_MS);
      }
    }
  }

  /** What has been heard so far (`epoch` 0: not listening, nothing to trust). */
  now(): Heard {
    return { epoch: this.listening ? this.epoch : 0, count: this.count };
  }

  /** Nothing heard since `then`, and the feed listened all along. */
  quietSince(then: Heard): boolean {
    return then.epoch !== 0 && this.listening && then.epoch === this.epoch && then.count === this.count;
  }

  /** Whether `then`'s epoch is still the one listening (what was heard since is told to `heard`). */
  sameEpoch(then: Heard): boolean {
    return then.epoch !== 0 && this.listening && then.epoch === this.epoch;
  }

  /**
   * A statement on the listening connection. Answered in the epoch it was sent in, it is a barrier:
   * every change committed before it was sent has been heard.
   */
  async read<T extends readonly postgres.MaybeRow[]>(make: (sql: Sql) => postgres.PendingQuery<T>): Promise<T> {
    this.db.reachable(); // while the database is known gone, at once (503), as the pool's statements
    const sentAt = performance.now();
    this.lastSentAt = sentAt;
    const epoch = this.listening ? this.epoch : 0;
    const rows = await make(this.conn);
    if (epoch !== 0 && this.listening && epoch === this.epoch && sentAt > this.barrierSentAt)
      this.barrierSentAt = sentAt;
    return rows;
  }

  /**
   * Resolves once every change committed before the current request arrived has been heard, in the
   * epoch current now (false if the connection changed meanwhile): at once when a barrier sent after
   * the request's arrival (the key throttle's read, postgres/pg-rate-limiter.ts) has answered in this
   * epoch, else after a barrier of its own (shared by the requests waiting at the time).
   */
  async sync(): Promise<boolean> {
    const epoch = this.epoch;
    if (!this.listening) return false;
    const arrived = arrivedAt();
    if (arrived === undefined || this.barrierSentAt < arrived) {
      const since = performance.now();
      const answered = await this.barriers.get(0).catch(() => false);
      if (!answered || this.barrierSentAt < since) return false;
    }
    return this.listening && this.epoch === epoch;
  }

  async close() {
    this.closed = true;
    clearInterval(this.pinging);
    await this.conn.end({ timeout: 1 });
  }
}

/** The NOTIFY a write to a ticket's row sends in its transaction (delivered on commit, not on rollback). */
export const changeNotice = (db: Database, mode: string, id: string, version: string | undefined) =>
  db.notify(CHANNEL, `${mode} ${id} ${version ?? ''}`);
