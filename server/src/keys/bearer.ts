import type { Context } from 'koa';
import type { Credential } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { rateLimited, type RateLimiter } from '../http/rate-limit.js';
import type { RequestActor } from '../model/index.js';
import type { KeyStore } from '../store/key-store.js';
import { isWellFormedKey, sha256, type AuthKey } from './keys.js';

const BEARER = /^Bearer +(\S+) *$/i;
const HOUR = 3_600_000;

/** Failed key lookups allowed per client address and minute (`TICKETING_KEY_FAILURES_PER_MINUTE`). */
export interface KeyFailureLimit {
  limiter: RateLimiter;
  perMinute: number;
}

/** The actor a key stands for: a customer with a public key, support with a secret key. */
function keyActor(found: AuthKey, key: string): RequestActor {
  const ref = { id: found.id, prefix: found.prefix };
  return found.kind === 'public'
    ? { kind: 'customer', mode: found.mode, key: { ...ref, origins: found.origins, public: key } }
    : { kind: 'key', mode: found.mode, key: ref, admin: found.mode === 'live' };
}

/**
 * `Authorization: Bearer <key>`, checked before a byte of the body is read. Anything but a Bearer
 * header is no key at all (401 missing_api_key).
 *
 * An address whose key lookups failed `perMinute` times in a minute gets 429 for the rest of that
 * minute, before its key is even looked at (so it costs nothing, and a right key does not help). This
 * stays on with TICKETING_RATE_LIMIT=off: a client with a valid key never fails a lookup, so it
 * never meets this limit, and guessing keys is never a load test.
 */
export function bearerKey(keys: KeyStore, failures: KeyFailureLimit): Credential {
  const marked = new Map<string, number>();
  /**
   * `last_used_at`, to the hour: one write per key and hour at most (this process remembers what it
   * wrote, so concurrent requests do not each write). Best effort: a failed write must not fail the
   * request that merely used the key.
   */
  async function markUsed(found: AuthKey) {
    if (found.id.startsWith('env:')) return; // TICKETING_KEYS are never stored
    const now = Date.now();
    const last = Math.max(marked.get(found.id) ?? 0, found.last_used_at ? Date.parse(found.last_used_at) : 0);
    if (now - last < HOUR) return;
    marked.set(found.id, now);
    await keys.markUsed(found.id, new Date(now).toISOString()).catch(() => marked.delete(found.id));
  }
  return async (ctx: Context) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match) return undefined;
    const bucket = `key-failures|${ctx.ip}`;
    const wait = await failures.limiter.wait(bucket, failures.perMinute);
    if (wait) throw rateLimited(wait);
    const key = match[1]!;
    const found = isWellFormedKey(key) ? await keys.find(sha256(key)) : undefined;
    if (!found) {
      await failures.limiter.count(bucket, 60_000);
      throw new ApiError(401, 'invalid_api_key', 'This API key is not valid, or it was revoked.');
    }
    await markUsed(found);
    return keyActor(found, key);
  };
}
