import type { RateLimitConfig } from '../config/config.js';
import type { RequestActor } from '../model/index.js';
import { ApiError } from './errors.js';

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed windows of counts per bucket (a client address and key, an address's upload bytes, a customer
 * address's mails). Counted before the body is read, so a refused request stores nothing and costs
 * almost nothing. One process keeps them in memory (MemoryRateLimiter); several instances share them
 * in PostgreSQL (postgres/pg-rate-limiter.ts), so a limit holds however a balancer spreads a client.
 */
export interface RateLimiter {
  /**
   * Counts `cost` (one request, or a number of bytes) against `limit`; resolves to the seconds to wait
   * when it does not fit in the window, else 0. A refused hit counts nothing.
   */
  hit(bucket: string, limit: number, windowMs: number, cost?: number): Promise<number>;
  /** The seconds to wait when `bucket` has reached `limit` in its current window (nothing more fits), else 0. Counts nothing. */
  wait(bucket: string, limit: number): Promise<number>;
  /** Counts `cost` in `bucket`, opening a window of `windowMs` when none is running. */
  count(bucket: string, windowMs: number, cost?: number): Promise<void>;
  /** How many windows are kept: one per bucket seen in the last window, so per client, not per request. */
  windows(): Promise<number>;
}

/** The windows of one process, in memory. */
export class MemoryRateLimiter implements RateLimiter {
  private buckets = new Map<string, Window>();
  private lastSweep = 0;

  constructor(private readonly now: () => number) {}

  /**
   * Counts `cost` (one request, or a number of bytes) against `limit`; returns the seconds to wait
   * when it does not fit in the window, else 0. A refused hit counts nothing.
   */
  hit(bucket: string, limit: number, windowMs: number, cost = 1): Promise<number> {
    const now = this.now();
    const w = this.buckets.get(bucket);
    const running = w && w.resetAt > now ? w : undefined;
    if ((running?.count ?? 0) + cost > limit)
      return Promise.resolve(Math.max(1, Math.ceil(((running?.resetAt ?? now + windowMs) - now) / 1000)));
    this.add(bucket, windowMs, cost);
    return Promise.resolve(0);
  }

  /** The seconds to wait when `bucket` has reached `limit` in its current window (nothing more fits), else 0. Counts nothing. */
  wait(bucket: string, limit: number): Promise<number> {
    // Asked on every request with a key: a bucket that does not exist needs no clock.
    const w = this.buckets.get(bucket);
    if (!w) return Promise.resolve(0);
    const now = this.now();
    if (w.resetAt <= now || w.count < limit) return Promise.resolve(0);
    return Promise.resolve(Math.max(1, Math.ceil((w.resetAt - now) / 1000)));
  }

  windows() {
    return Promise.resolve(this.buckets.size);
  }

  count(bucket: string, windowMs: number, cost = 1) {
    this.add(bucket, windowMs, cost);
    return Promise.resolve();
  }

  private add(bucket: string, windowMs: number, cost: number) {
    const now = this.now();
    this.sweep(now);
    let w = this.buckets.get(bucket);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.buckets.set(bucket, w);
    }
    w.count += cost;
  }

  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, w] of this.buckets) if (w.resetAt <= now) this.buckets.delete(k);
  }
}

/**
 * The per-minute limits of API.md, per client address and credential (a customer's public key gets the
 * smaller one), and for customers on a `create` route the ticket-creation limit on top.
 */
export async function checkRateLimit(
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
    ? await limiter.hit(`pk|${who}`, config.pkPerMinute, 60_000)
    : await limiter.hit(`sk|${who}`, config.skPerMinute, 60_000);
  if (!wait && customer && rateClass === 'create') {
    wait = await limiter.hit(`create|${who}`, config.pkCreatesPer10Minutes, 600_000);
  }
  if (wait) throw rateLimited(wait);
}

export const rateLimited = (wait: number) =>
  new ApiError(429, 'rate_limited', `Too many requests. Try again in ${wait} s.`, {
    headers: { 'Retry-After': String(wait) },
  });
