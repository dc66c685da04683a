import { join, resolve } from 'node:path';
import type { Context } from 'koa';
import type { Deps } from '../deps.js';
import { unlinkDurable, writeFileDurable } from '../store/durable-write.js';
import { LAYOUT } from '../store/layout.js';

export interface HealthOptions {
  /** The data directory's check is reused this long: load balancers probe every few seconds, each probe is two fsyncs. */
  storeCacheMs?: number;
  /** A job due longer ago than this, and still not sent or rescheduled, means the outbox is stuck. */
  outboxStuckMs?: number;
  /** Aborted when the server begins to stop: /ready answers 503, and balancers send no more. */
  stopping?: AbortSignal;
}

interface Check {
  ok: boolean;
  error?: string;
  [detail: string]: unknown;
}

/** A check that has not answered in this long fails: a probe must hear "not ready" while it still listens. */
const CHECK_MS = 1000;

/** `work`, or a rejection once `ms` have passed without its answer. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error('no answer in time')), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The probes' paths, outside /v1. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health', '/ready']);

/**
 * Answers a request for one of HEALTH_PATHS (http/frame.ts sends them here). GET /health: the process
 * answers. GET /ready: it can do its work — the data directory takes a real durable write and delete
 * (or the database answers), and the outbox is moving. No key (probes have none), small JSON, never
 * cached. Failures name the check and an error code, never a path or a message that could carry one.
 */
export function health(deps: Deps, options: HealthOptions = {}): (ctx: Context) => Promise<void> {
  const storeCacheMs = options.storeCacheMs ?? 1500;
  const outboxStuckMs = options.outboxStuckMs ?? 5 * 60_000;
  const probePath = join(resolve(deps.config.dataDir), LAYOUT.readyProbe);
  let store: { at: number; result: Promise<Check> } | undefined;
  let wasReady = true;

  const storeCheck = async (): Promise<Check> => {
    // A database's probe is one cheap statement, and the Database answers at once while it knows the
    // database is gone: asked each time, so /ready turns 503 as soon as that is known.
    if (deps.storeProbe) {
      try {
        await within(deps.storeProbe(), CHECK_MS);
        return { ok: true };
      } catch {
        return { ok: false, error: 'database_unreachable' };
      }
    }
    const now = deps.clock().getTime();
    if (!store || now - store.at >= storeCacheMs) {
      const result = (async (): Promise<Check> => {
        try {
          await writeFileDurable(probePath, new Date(now).toISOString());
          await unlinkDurable(probePath);
          return { ok: true };
        } catch (err) {
          return { ok: false, error: (err as NodeJS.ErrnoException).code ?? 'write_failed' };
        }
      })();
      store = { at: now, result };
    }
    return store.result;
  };

  const outboxCheck = async (): Promise<Check> => {
    const now = deps.clock().getTime();
    let pending;
    try {
      pending = await within(deps.outbox.pending(), CHECK_MS);
    } catch {
      return { ok: false, error: 'unreadable' };
    }
    const stuck = pending.filter((j) => now - Date.parse(j.next_attempt_at) > outboxStuckMs).length;
    return stuck
      ? { ok: false, error: 'jobs_overdue', pending: pending.length, overdue: stuck }
      : { ok: true, pending: pending.length };
  };

  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { error: { code: 'method_not_allowed', message: `${ctx.method} is not allowed here.` } };
      return;
    }
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok', version: deps.version };
      return;
    }
    const [storeResult, outboxResult] = await Promise.all([storeCheck(), outboxCheck()]);
    const checks: Record<string, Check> = { store: storeResult, outbox: outboxResult };
    if (options.stopping?.aborted) checks.shutdown = { ok: false, error: 'stopping' };
    const failing = Object.keys(checks).filter((name) => !checks[name]!.ok);
    const ready = failing.length === 0;
    if (ready !== wasReady) {
      wasReady = ready;
      if (ready) deps.logger.info('ready again');
      else deps.logger.warn({ failing, checks }, 'not ready');
    }
    ctx.status = ready ? 200 : 503;
    ctx.body = ready ? { status: 'ready', checks } : { status: 'not_ready', failing, checks };
  };
}
