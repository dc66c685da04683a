import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import postgres from 'postgres';
import type { DatabaseConfig } from '../config/config.js';
import { StartupError } from '../store/startup-error.js';
import { DATABASE_GONE, DATABASE_SILENT, unavailableStore } from '../store/unavailable.js';
import { currentUnit, insideUnit, type Unit, type UnitOfWork } from '../store/unit-of-work.js';
import { AnswerWatchdog, silentError } from './answer-watchdog.js';

export type Sql = postgres.Sql;

/** The URL with its password replaced: what messages and logs may show. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'TICKETING_DATABASE_URL';
  }
}

// Failures worth waiting out while a database comes up (a container starting beside this one):
// every "cannot be reached" of store/unavailable.ts.
const transient = (err: unknown) => unavailableStore(err) === 'database';

/**
 * Whether the URL leads to a pooler that hands one PostgreSQL session to several connections in turn
 * (PgBouncer's pool_mode = transaction or statement). Behind one, what this server keeps in a session
 * belongs to whichever connection comes next: another instance's change notices reach nobody (so a
 * ticket held in memory would be served after another instance changed it), two instances can both
 * hold the scheduler's lock, and a prepared statement is missing on the next session. Found by a
 * setting made for the session on one connection, which that connection must still have at its next
 * statement (a pooler taking turns gives it another session) and a second connection must not see (a
 * pooler that gives the session released last, or has one, gives it the first's). Three rounds: another
 * client of the pooler may take a session in between. Checked when an instance starts, not after: a
 * pooler switched to transaction pooling under running instances is not noticed.
 */
async function sessionsShared(sql: Sql): Promise<boolean> {
  const first = await sql.reserve();
  const second = await sql.reserve().catch((err: unknown) => {
    first.release();
    throw err;
  });
  // Unprepared statements (unsafe's default): a shared session may hold another connection's prepared ones.
  const seen = async (c: postgres.ReservedSql) =>
    (await c.unsafe<{ seen: string | null }[]>(`SELECT current_setting('ticketing.session_check', true) AS seen`))[0]!
      .seen;
  try {
    for (let round = 0; round < 3; round++) {
      const token = randomBytes(8).toString('hex');
      await first.unsafe(`SELECT set_config('ticketing.session_check', $1, false)`, [token]);
      if ((await seen(first)) !== token || (await seen(second)) === token || (await seen(first)) !== token) return true;
    }
    return false;
  } finally {
    first.release();
    second.release();
  }
}

/** How long a statement may wait for a connection, and /ready for the database's answer. */
const CONNECT_TIMEOUT_S = 2;
/**
 * Seconds a connection waits before connecting again after a failure. The driver's own backoff grows
 * with the failures of the whole pool up to 20 s, and the statements queued meanwhile wait all of it
 * (requests hung for 25 s): here a short, fixed pause; the gate below keeps a gone database from
 * being asked by every request.
 */
const BACKOFF = () => 0.2 + Math.random() * 0.3;
/** While the database may be gone, how often one probe asks whether it is back. */
const PROBE_EVERY_MS = 500;
/** A probe that gets no answer in this long failed (a silent network), and its connection is replaced. */
const PROBE_ANSWER_MS = 2000;
/**
 * TCP keepalive on every connection after this many seconds of quiet (the driver's default is 60):
 * the kernel then notices a peer that is gone for good (a NAT that forgot the flow) even on an idle
 * connection, and a middlebox that drops idle flows sees traffic. A network that is only silent is
 * caught sooner by the watchdog (postgres/answer-watchdog.ts).
 */
const KEEPALIVE_S = 10;
/**
 * The same on the database's side of each connection (settings of the session, sent when it opens):
 * PostgreSQL probes after KEEPALIVE_S of quiet, every 5 s, and ends the session after 3 unanswered
 * probes. A session whose instance's machine is gone (powered off, failed over, cut off) then ends
 * within about 25 s, and with it what it held: the scheduler's lead (pg-leadership.ts), which every
 * other instance would otherwise wait for until the kernel's default, two hours and more.
 */
const DATABASE_KEEPALIVE = {
  tcp_keepalives_idle: KEEPALIVE_S,
  tcp_keepalives_interval: 5,
  tcp_keepalives_count: 3,
};

/**
 * The settings the pool's connections send when they open (the others send the keepalive ones):
 * PgBouncer must be told to let them through (docs/deploy.md).
 */
export const sentAtConnect = (statementTimeoutMs: number) => ({
  ...DATABASE_KEEPALIVE,
  statement_timeout: statementTimeoutMs,
  // A transaction left open by a stuck request must not hold its row locks for ever.
  idle_in_transaction_session_timeout: Math.max(statementTimeoutMs * 4, 60_000),
});

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing listens at that address (connection refused)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (yet)',
  ETIMEDOUT: 'the connection timed out',
  CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  '28P01': 'the password is wrong',
  '28000': 'the user may not log in',
  '3D000': 'the database does not exist',
  '57P03': 'the database is starting up',
  '53300': 'it has no free connection',
};

/** One line on why a connection failed, without the URL's password. */
function connectionFailure(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const reason = (e.code && REASONS[e.code]) ?? e.message ?? String(err);
  return e.code && !REASONS[e.code] ? `${reason} (${e.code})` : reason;
}

function tlsOption(config: DatabaseConfig): postgres.Options<Record<string, never>>['ssl'] | undefined {
  if (config.tls === undefined) return undefined; // the URL's sslmode, if any, decides
  if (config.tls === 'off') return false;
  if (config.tls === 'require') return 'require';
  return config.caFile ? { ca: readFileSync(config.caFile, 'utf8'), rejectUnauthorized: true } : 'verify-full';
}

/**
 * The connection pool every PostgreSQL store shares, and the unit of work: a request's writes run in
 * one transaction on one reserved connection, begun on its first statement (so a request that waits
 * on the network before it writes holds no connection) and committed before the answer goes out.
 * Stores ask `q()` for where to run a statement: the current unit's transaction, or the pool.
 */
export class Database {
  /** Since when the database is known to be gone (a probe failed), until a probe succeeds again. */
  private goneSince: number | undefined;
  private watching: Promise<void> | undefined;
  private closing = false;
  /** Whether this database lets commitsLater() make a commit durable after the fact (see there). */
  private flushable = false;

  /**
   * The pool, for statements outside a unit. A statement asked of it while the database is known to
   * be gone fails at once (503 `unavailable`) instead of queueing behind connections that cannot come.
   */
  readonly sql: Sql;

  /** The reservations waiting for a connection: given up at once when the network is found silent. */
  private readonly reserving = new Set<(err: Error) => void>();
  /** The watchdog's own connection for asking which backends run a statement (replaced when it goes silent). */
  private asker: Sql | undefined;

  private constructor(
    private readonly pool: Sql,
    readonly url: string,
    private readonly config: DatabaseConfig,
    private readonly logger: Logger | undefined,
    private readonly watchdog: AnswerWatchdog,
  ) {
    this.sql = new Proxy(pool, {
      apply: (target, self, args: unknown[]) => {
        // Only a tagged template is a statement; sql(name), sql(rows) are helpers inside one.
        const statement = Array.isArray(args[0]) && 'raw' in args[0];
        if (statement && this.goneSince !== undefined) return Promise.reject(gone());
        return Reflect.apply(target, self, args) as unknown;
      },
    });
  }

  /**
   * Connects, waiting up to `waitSeconds` for a database that is not up yet (each failure after the
   * first is quiet; `waiting` hears the first). A database that answers "no" (a wrong password, no
   * such database) stops at once with one line.
   */
  static async connect(
    config: DatabaseConfig,
    options: { waiting?: (line: string) => void; applicationName?: string; logger?: Logger } = {},
  ): Promise<Database> {
    const where = redactedUrl(config.url);
    let db: Database | undefined;
    const watchdog = new AnswerWatchdog(
      (pids) => (db ? db.idle(pids) : Promise.reject(silentError('not connected yet'))),
      (err) => db?.silent(err),
    );
    let sql: Sql;
    try {
      sql = postgres(config.url, {
        max: config.pool,
        ssl: tlsOption(config),
        connect_timeout: CONNECT_TIMEOUT_S,
        backoff: BACKOFF,
        keep_alive: KEEPALIVE_S,
        idle_timeout: 60,
        // Not in the driver's types: the hooks patches/postgres@3.4.9.patch adds.
        ...(watchdog.hooks as object),
        onnotice: () => {},
        connection: {
          ...sentAtConnect(config.statementTimeoutMs),
          application_name: options.applicationName ?? 'ticketing',
        },
      });
    } catch (err) {
      throw new StartupError(
        `TICKETING_DATABASE_URL cannot be used: ${(err as Error).message}.`,
        'It looks like postgres://user:password@host:5432/database (special characters in the password percent-encoded).',
      );
    }
    const deadline = Date.now() + config.waitSeconds * 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        await sql`select 1`;
        if (await sessionsShared(sql)) break;
        db = new Database(sql, config.url, config, options.logger, watchdog);
        // The watchdog's connection opens now: connecting (and authenticating) when a statement is
        // already suspect would take part of the ask's bound on a loaded machine.
        await db.idle([]).catch(() => {});
        // A user that may not write a WAL message keeps every commit waiting for the disk.
        db.flushable = await flushed(sql).then(
          () => true,
          () => false,
        );
        return db;
      } catch (err) {
        if (!transient(err) || Date.now() >= deadline) {
          watchdog.close();
          await sql.end({ timeout: 0 }).catch(() => {});
          throw new StartupError(
            `Could not start: the database at ${where} cannot be used: ${connectionFailure(err)}.`,
            transient(err)
              ? `Waited ${config.waitSeconds} s (TICKETING_DATABASE_WAIT_SECONDS). Check that PostgreSQL runs and that TICKETING_DATABASE_URL names it.`
              : 'Check TICKETING_DATABASE_URL (user, password, host, port, database).',
          );
        }
        if (attempt === 1)
          options.waiting?.(
            `waiting for the database at ${where}: ${connectionFailure(err)} (up to ${config.waitSeconds} s)`,
          );
        await sleep(1000);
      }
    }
    // Only a pooler sharing sessions leaves the loop.
    watchdog.close();
    await sql.end({ timeout: 0 }).catch(() => {});
    throw new StartupError(
      `Could not start: the database at ${where} is reached through a pooler that shares each PostgreSQL session ` +
        'between connections (PgBouncer with pool_mode = transaction or statement).',
      "Ticketing needs a session per connection: it listens for the other instances' changes (LISTEN), holds the " +
        "scheduler's lead (an advisory lock) and prepares its statements. Set pool_mode = session for its " +
        "database in pgbouncer.ini (or your pooler's equivalent), or point TICKETING_DATABASE_URL at PostgreSQL itself.",
    );
  }

  /** A connection of its own beside the pool, for what holds a session (leadership, migrations' lock). */
  single(applicationName: string): Sql {
    return postgres(this.url, {
      max: 1,
      ssl: tlsOption(this.config),
      connect_timeout: CONNECT_TIMEOUT_S,
      backoff: BACKOFF,
      keep_alive: KEEPALIVE_S,
      onnotice: () => {},
      connection: { ...DATABASE_KEEPALIVE, application_name: applicationName },
    });
  }

  /**
   * A connection of its own that stays open (no idle or lifetime end), told of each notification
   * and of its closing: what the change feed (postgres/change-feed.ts) listens and reads on. The
   * driver's own listen() hides its connection; the feed needs to send statements on it.
   */
  own(
    applicationName: string,
    events: { onnotify: (channel: string, payload: string) => void; onclose: () => void },
  ): Sql {
    return postgres(this.url, {
      max: 1,
      ssl: tlsOption(this.config),
      connect_timeout: CONNECT_TIMEOUT_S,
      backoff: BACKOFF,
      keep_alive: KEEPALIVE_S,
      max_lifetime: null,
      onnotice: () => {},
      connection: { ...DATABASE_KEEPALIVE, application_name: applicationName },
      // Not in the driver's types: what its own listen() passes (src/index.js), and the watchdog's hooks.
      ...({ onnotify: events.onnotify, ...this.watchdog.hooks } as object),
      onclose: events.onclose,
    });
  }

  /**
   * Where to run a statement: the current unit's transaction (begun now if not yet), or the pool.
   * While the database is known to be gone it throws at once (503 `unavailable`): no request waits
   * for a connection that cannot come.
   */
  q(): Promise<Sql> {
    if (this.goneSince !== undefined) return Promise.reject(gone());
    const unit = currentUnit();
    if (!unit) return Promise.resolve(this.sql);
    return this.tx(unit).then((t) => {
      flush(t);
      return t.conn;
    });
  }

  /**
   * The unit's transaction, begun on its first statement. BEGIN waits in the queue of statements
   * nobody waits for (later() below), so it travels with the first one that is sent.
   */
  private tx(unit: Unit): Promise<Tx> {
    unit.tx ??= this.reserve().then((conn) => ({ conn, queued: [(c) => c`begin`], sent: [] }) as Tx);
    return unit.tx as Promise<Tx>;
  }

  /**
   * Queues a statement whose answer the unit's work does not wait for (a row nothing reads back, a
   * NOTIFY): it goes out, in order, right before the unit's next statement, or with the COMMIT, so
   * a request whose writes are all of this kind makes one round trip for BEGIN, them and COMMIT. If
   * it fails the unit rolls back and the request fails. Resolves at once with its answer to come;
   * outside a unit the statement runs on the pool and is answered first.
   */
  async later<T extends readonly postgres.MaybeRow[]>(
    make: (sql: Sql) => postgres.PendingQuery<T>,
  ): Promise<{ answer: Promise<postgres.RowList<T>> }> {
    if (this.goneSince !== undefined) throw gone();
    const unit = currentUnit();
    if (!unit) {
      const answer = await make(this.sql);
      return { answer: Promise.resolve(answer) };
    }
    const t = await this.tx(unit);
    let answered!: (answer: Promise<postgres.RowList<T>>) => void;
    const answer = new Promise<postgres.RowList<T>>((ok) => (answered = ok)).then((a) => a);
    answer.catch(() => {});
    t.queued.push((conn) => {
      const query = make(conn);
      answered(query);
      return query as unknown as postgres.PendingQuery<postgres.MaybeRow[]>;
    });
    return { answer };
  }

  /**
   * Queues a NOTIFY on `channel` (delivered when the unit commits, not at all on a rollback; outside a
   * unit, at once). PostgreSQL holds one lock, for the whole cluster, from a notifying transaction's
   * commit until that commit is on disk: units that notify (every create, reply and change, on every
   * instance) would take turns through one fsync each. So such a unit commits later (below) and
   * shares its flush with the others.
   */
  async notify(channel: string, payload: string) {
    await this.commitsLater();
    await this.later((sql) => sql`SELECT pg_notify(${channel}, ${payload})`);
  }

  /**
   * Inside a unit: its COMMIT does not wait for the disk (synchronous_commit off for it alone), so the
   * locks it holds to its end (NOTIFY's, see notify()) are released as soon as the commit is written
   * to the WAL instead of after the fsync, and the next unit's commit can share a flush with it. The
   * unit's end still waits for the disk before anything is acknowledged: a statement sent right
   * behind the COMMIT writes a WAL message in a transaction of its own that does wait, and the WAL is
   * flushed in order, so its answer means the unit's commit is on disk too. Other sessions can see the
   * commit until then (about a millisecond) before it is on disk: a crash of the database's machine in
   * that moment loses a write nobody was told was stored, which another instance may have shown.
   */
  async commitsLater() {
    const unit = currentUnit();
    if (!unit || !this.flushable) return;
    const t = await this.tx(unit);
    if (t.flushAfter) return;
    t.flushAfter = true;
    t.queued.push((c) => c`SET LOCAL synchronous_commit TO off`);
  }

  /** For /ready: throws at once while the database is gone, else when it does not answer within the connect timeout. */
  async probe() {
    if (this.goneSince !== undefined) throw gone();
    try {
      await this.pool`SELECT 1`;
    } catch (err) {
      this.failed(err);
      throw err;
    }
  }

  /**
   * A statement failed: when the database may be gone, one probe at a time asks it until it answers.
   * The first probe that fails marks it gone (logged once); the first that answers after that marks
   * it back (logged once). A single connection ended by an admin or a pooler is not an outage: the
   * first probe answers on a new connection and nothing is logged.
   */
  private failed(err: unknown) {
    if (this.closing || this.watching || !transient(err)) return;
    // A connection of its own: a pooled one may be another that the same admin or restart ended.
    let probe = this.single('ticketing-probe');
    this.watching = (async () => {
      for (let failures = 0; ;) {
        try {
          await answeredWithin(probe`SELECT 1`, PROBE_ANSWER_MS);
          break;
        } catch (probeErr) {
          if (this.closing) return;
          if ((probeErr as { code?: string }).code === DATABASE_SILENT) {
            // Its connection may be black-holed for good: the next probe connects anew.
            void probe.end({ timeout: 0 }).catch(() => {});
            probe = this.single('ticketing-probe');
          }
          // Two in a row: a single one may have met a session ended with those that failed.
          if (++failures >= 2 && this.goneSince === undefined) {
            this.goneSince = Date.now();
            this.logger?.error({ reason: connectionFailure(probeErr) }, 'database unreachable');
          }
          await sleep(PROBE_EVERY_MS);
        }
      }
      if (this.goneSince !== undefined) {
        this.logger?.info({ down_ms: Date.now() - this.goneSince }, 'database reachable again');
        this.goneSince = undefined;
      }
    })().finally(() => {
      this.watching = undefined;
      void probe.end({ timeout: 0 }).catch(() => {});
    });
  }

  /**
   * Runs `work` as one transaction, or as part of the unit already running. Commits when it resolves,
   * rolls back when it throws; a statement that failed inside (whose error a listener caught) makes the
   * commit a rollback, which is reported as an error: nothing is acknowledged that was not stored.
   */
  unit: UnitOfWork = async <T>(work: () => Promise<T>): Promise<T> => {
    if (currentUnit()) return work();
    const unit: Unit = { tx: undefined, committed: [], rolledBack: [] };
    let result: T;
    try {
      result = await insideUnit(unit, work);
      await this.end(unit, true);
    } catch (err) {
      this.failed(err);
      await this.end(unit, false).catch(() => {});
      for (const fn of unit.rolledBack) fn();
      throw err;
    }
    for (const fn of unit.committed) fn();
    return result;
  };

  private async end(unit: Unit, commit: boolean) {
    if (!unit.tx) return;
    const tx = unit.tx as Promise<Tx>;
    unit.tx = undefined;
    const t = await tx;
    const { conn } = t;
    try {
      if (!commit) {
        if (t.sent.length) await conn`rollback`; // else not even BEGIN went out
        return;
      }
      // COMMIT goes out with the statements still queued, behind those not yet answered.
      flush(t);
      const committing = sent(conn`commit`);
      const durable = t.flushAfter ? sent(flushed(conn)) : undefined;
      const answers = await Promise.allSettled(t.sent);
      const done = await committing;
      await durable;
      const failed = answers.find((a) => a.status === 'rejected');
      if (failed) throw failed.reason;
      // PostgreSQL answers COMMIT in a failed transaction with ROLLBACK, not with an error.
      if (done.command !== 'COMMIT') throw new Error('the transaction was rolled back: a statement in it failed');
    } finally {
      conn.release();
    }
  }

  /** Calls `fn` with each notification on `channel`; LISTEN is renewed by the driver after a reconnect. */
  async listen(channel: string, fn: (payload: string) => void, onListen?: () => void) {
    const { unlisten } = await this.pool.listen(channel, fn, onListen);
    return unlisten;
  }

  /**
   * A reservation (a unit's connection), given up when the network is found silent (silent()): the
   * request answers 503 then instead of waiting for connections that cannot come. It has no bound of
   * its own (postgres/answer-watchdog.ts says why). One that comes later is released unused.
   */
  private reserve(): Promise<postgres.ReservedSql> {
    const reserving = this.pool.reserve();
    let giveUp!: (err: Error) => void;
    const givenUp = new Promise<never>((_, fail) => {
      giveUp = (err) => {
        fail(err);
        reserving.then(
          (conn) => conn.release(),
          () => {},
        );
      };
    });
    this.reserving.add(giveUp);
    return Promise.race([reserving, givenUp]).finally(() => this.reserving.delete(giveUp));
  }

  /** Which of these backends the database lists as not running a statement, asked on the watchdog's connection. */
  private async idle(pids: number[]): Promise<Set<number>> {
    this.asker ??= this.single('ticketing-watchdog');
    const rows = await this.asker<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity
      WHERE pid = ANY(${pids}::int[]) AND state NOT IN ('active', 'fastpath function call')`;
    return new Set(rows.map((r) => r.pid));
  }

  /** Throws at once (503 `unavailable`) while the database is known to be gone. */
  reachable() {
    if (this.goneSince !== undefined) throw gone();
  }

  /**
   * The watchdog could not ask the database within its bound while statements went unanswered: the
   * network is silent. What waits is given up, and the database is taken for gone at once (requests
   * answer 503 without waiting for a bound each) until a probe answers on a new connection, which
   * logs the return.
   */
  private silent(err: Error) {
    if (this.asker) void this.asker.end({ timeout: 0 }).catch(() => {});
    this.asker = undefined;
    if (this.closing) return;
    this.watchdog.giveUpAll(err.message);
    for (const giveUp of [...this.reserving]) giveUp(err);
    if (this.goneSince === undefined) {
      this.goneSince = Date.now();
      this.logger?.error({ reason: err.message }, 'database unreachable');
    }
    this.failed(err);
  }

  close() {
    this.closing = true;
    this.watchdog.close();
    if (this.asker) void this.asker.end({ timeout: 0 }).catch(() => {});
    return this.pool.end({ timeout: 5 });
  }
}

/** A unit's transaction: its connection, the statements waiting to go out, and those sent that nobody waited for. */
interface Tx {
  conn: postgres.ReservedSql;
  /** Committed without waiting for the disk, and then flushed (commitsLater()). */
  flushAfter?: boolean;
  queued: ((conn: postgres.ReservedSql) => postgres.PendingQuery<postgres.MaybeRow[]>)[];
  sent: Promise<unknown>[];
}

/**
 * A statement that writes a WAL message in its own transaction (nothing else: no table, no lock) and so
 * waits, as any commit does, until the WAL up to it is on disk. PostgreSQL 9.6 and later, any wal_level.
 */
const flushed = (sql: Sql) => sql`SELECT pg_logical_emit_message(true, 'ticketing', '')::text AS lsn`;

/** Sends the queued statements, in order (the driver writes them out together). */
function flush(t: Tx) {
  for (const make of t.queued.splice(0)) t.sent.push(sent(make(t.conn)));
}

/** Sends a statement now (the driver's queries wait to be awaited), with its failure handled until someone waits for it. */
function sent<T extends readonly postgres.MaybeRow[]>(query: postgres.PendingQuery<T>): Promise<postgres.RowList<T>> {
  const answer = query.execute();
  answer.catch(() => {});
  return answer;
}

/** A statement's answer, or a DATABASE_SILENT failure when none comes within `ms`. */
function answeredWithin<T>(answer: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(silentError(`no answer within ${ms} ms`)), ms);
  });
  answer.catch(() => {});
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** What q() and probe() throw while the database is known to be gone (store/unavailable.ts: a 503). */
function gone() {
  return Object.assign(new Error('the database cannot be reached'), { code: DATABASE_GONE });
}
