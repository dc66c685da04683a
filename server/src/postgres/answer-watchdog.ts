import { performance } from 'node:perf_hooks';
import { DATABASE_SILENT } from '../store/unavailable.js';

/**
 * A silent network (packets dropped, sockets left open: a firewall, a failover that black-holes the
 * old address, a NAT timeout) gives a statement neither an answer nor an error until TCP gives up,
 * minutes later. These bounds end such a wait; they differ by kind because a legitimately slow
 * statement must never be cut:
 *
 * - A statement sent and unanswered for SUSPECT_MS is suspect (a request's statements answer in
 *   milliseconds). The database is then asked, on a connection of the watchdog's own, which of the
 *   suspects' backends it knows and are not running a statement. The answer of such a one was lost
 *   (that session's flow is dead): its connection is destroyed. Any other is slow, not lost (a report
 *   at 1M tickets, 0.25-4 s; a migration; VACUUM): it is left to `statement_timeout`, the database's
 *   own bound, and asked about again after another SUSPECT_MS. (A backend the database does not
 *   list is left too: behind a pooler such as PgBouncer the pid is the pooler's, not a backend's;
 *   TCP keepalive ends a flow that is dead for good.) If the database does not answer within ASK_MS
 *   the network is silent: the connection is destroyed (never reused) and the statement fails
 *   (503 `unavailable`), about SUSPECT_MS + ASK_MS after it was sent.
 * - A statement waiting for a connection is never sent once the network is found silent: it fails
 *   then, with the rest (giveUpAll). It has no bound of its own: under a burst of writes on a
 *   loaded machine a connection is waited for more than 2 s (30 creates at once on two instances,
 *   postgres/instances.test.ts), and that wait is work, not silence.
 */
const SUSPECT_MS = 1000;
/** Generous for one small statement on an open connection: a burst of writes on a loaded machine delays it (by ~1 s on two shared cores). */
const ASK_MS = 1500;
/** Between a verdict "idle" and the cut: an answer already on its way (a loopback's microseconds) arrives. */
const GRACE_MS = 200;
const TICK_MS = 200;

/** The driver's query, as far as the watchdog reads it (postgres/database.ts passes the driver's hooks here). */
interface Query {
  state: { pid: number | null } | null;
  then: (ok: () => void, failed: () => void) => unknown;
}

interface Watched {
  /** When the statement was sent, or began to wait for a connection; and when the database last vouched for it. */
  since: number;
  giveUp: (err: Error) => void;
  queued: boolean;
}

export class AnswerWatchdog {
  private readonly watched = new Map<Query, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private asking = false;

  /**
   * `ask(pids)` answers which of those backends the database lists as not running a statement now;
   * `silent(err)` is told when the database could not be asked (the network, not one connection, is
   * silent): it gives up everything waiting (giveUpAll).
   */
  constructor(
    private readonly ask: (pids: number[]) => Promise<Set<number>>,
    private readonly silent: (err: Error) => void,
  ) {}

  /** The driver's hooks (patches/postgres@3.4.9.patch): a statement sent on a connection, or queued for one. */
  readonly hooks = {
    onsent: (q: Query, destroy: (err: Error) => void) => this.watch(q, destroy, false),
    onqueued: (q: Query, drop: (err: Error) => void) => this.watch(q, drop, true),
  };

  private watch(q: Query, giveUp: (err: Error) => void, queued: boolean) {
    const known = this.watched.has(q);
    this.watched.set(q, { since: performance.now(), giveUp, queued });
    if (!known) {
      const done = () => {
        this.watched.delete(q);
        if (this.watched.size === 0) this.stop();
      };
      q.then(done, done);
    }
    this.timer ??= setInterval(() => this.tick(), TICK_MS).unref();
  }

  private stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick() {
    const now = performance.now();
    const suspects: [Query, Watched][] = [];
    for (const [q, w] of this.watched) if (!w.queued && now - w.since >= SUSPECT_MS) suspects.push([q, w]);
    if (suspects.length === 0 || this.asking) return;
    this.asking = true;
    const pids = [...new Set(suspects.map(([q]) => q.state?.pid).filter((p): p is number => typeof p === 'number'))];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(silentError(`the database did not answer within ${ASK_MS} ms`)), ASK_MS);
    });
    Promise.race([this.ask(pids), late])
      .then(
        (idle) => {
          const vouchedAt = performance.now();
          const lost: Query[] = [];
          for (const [q, w] of suspects) {
            if (!this.watched.has(q)) continue; // answered meanwhile
            if (idle.has(q.state?.pid ?? -1)) lost.push(q);
            else w.since = vouchedAt;
          }
          if (lost.length)
            setTimeout(() => {
              for (const q of lost) this.end(q, 'its connection went silent (the database had finished it)');
            }, GRACE_MS).unref();
        },
        (err: Error) => this.silent(err),
      )
      .finally(() => {
        clearTimeout(timer);
        this.asking = false;
      });
  }

  /** The network is silent, not one connection: what waits now will not be answered either. */
  giveUpAll(why: string) {
    for (const q of [...this.watched.keys()]) this.end(q, why);
  }

  private end(q: Query, why: string) {
    const w = this.watched.get(q);
    if (!w) return;
    this.watched.delete(q);
    w.giveUp(silentError(`the database did not answer: ${why}`));
  }

  close() {
    this.stop();
  }
}

/** What a statement cut by a watchdog fails with: the database cannot be reached (store/unavailable.ts: a 503). */
export function silentError(message: string) {
  return Object.assign(new Error(message), { code: DATABASE_SILENT });
}
