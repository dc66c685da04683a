import type { RateLimitConfig } from '../config/config.js';
import type { RequestActor } from '../model/index.js';
import { ApiError } from './errors.js';

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed windows per client address and key. Counted before the body is read, so a refused request
 * stores nothing and costs almost nothing.
 */
export class RateLimiter {
  private windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(private readonly now: () => number) {}

  /**
   * Counts `cost` (one request, or a number of bytes) against `limit`; returns the seconds to wait
   * when it does not fit in the window, else 0. A refused hit counts nothing.
   */
  hit(bucket: string, limit: number, windowMs: number, cost = 1): number {
    const now = this.now();
    const w = this.windows.get(bucket);
    const running = w && w.resetAt > now ? w : undefined;
    if ((running?.count ?? 0) + cost > limit)
      return Math.max(1, Math.ceil(((running?.resetAt ?? now + windowMs) - now) / 1000));
    this.count(bucket, windowMs, cost);
    return 0;
  }

  /** The seconds to wait when `bucket` has reached `limit` in its current window (nothing more fits), else 0. Counts nothing. */
  wait(bucket: string, limit: number): number {
    const now = this.now();
    const w = this.windows.get(bucket);
    if (!w || w.resetAt <= now || w.count < limit) return 0;
    return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
  }

  /** How many windows are kept: one per bucket seen in the last window, so per client, not per request. */
  get size() {
    return this.windows.size;
  }

  /** Counts `cost` in `bucket`, opening a window of `windowMs` when none is running. */
  count(bucket: string, windowMs: number, cost = 1) {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(bucket);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(bucket, w);
    }
    w.count += cost;
  }

  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

/**
 * The per-minute limits of API.md, per client address and credential (a customer's public key gets the
 * smaller one), and for customers on a `create` route the ticket-creation limit on top.
 */
export function checkRateLimit(
  limiter: RateLimiter,
  config: RateLimitConfig,
  actor: RequestActor,
  ip: string,
  rateClass: 'create' | undefined,
) {
  if (!config.enabled) return;
  const who = `${actor.kind === 'agent' ? `agent:${actor.agent.id}` : actor.key.id}|${ip}`;
  const customer = actor.kind === 'customer';
  let wait = customer
    ? limiter.hit(`pk|${who}`, config.pkPerMinute, 60_000)
    : limiter.hit(`sk|${who}`, config.skPerMinute, 60_000);
  if (!wait && customer && rateClass === 'create') {
    wait = limiter.hit(`create|${who}`, config.pkCreatesPer10Minutes, 600_000);
  }
  if (wait) throw rateLimited(wait);
}

export const rateLimited = (wait: number) =>
  new ApiError(429, 'rate_limited', `Too many requests. Try again in ${wait} s.`, {
    headers: { 'Retry-After': String(wait) },
  });
