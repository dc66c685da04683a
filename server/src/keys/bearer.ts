import type { Context } from 'koa';
import type { Credential } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { rateLimited, type RateLimiter } from '../http/rate-limit.js';
import type { RequestActor } from '../model/index.js';
import type { KeyStore } from '../store/key-store.js';
import { databaseKnownGone } from '../store/unavailable.js';
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
  // Frozen: one actor serves every request with its key (see bearerKey), so none may change it.
  return Object.freeze(
    found.kind === 'public'
      ? { kind: 'customer', mode: found.mode, key: Object.freeze({ ...ref, origins: found.origins, public: key }) }
      : { kind: 'key', mode: found.mode, key: Object.freeze(ref), admin: found.mode === 'live' },
  );
}

/** What a key record's requests share: its actor, and when it was last marked used (ms, 0: never). */
interface KnownKey {
  actor: RequestActor;
  lastUsed: number;
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
   * Per key record (the store makes a new one whenever a key changes, and a revoked key has none):
   * its actor, made once instead of on every request. Keyed by the record, never by the key: a
   * secret key is not kept in memory. The key's SHA-256 is still taken on every request, because
   * only the hash finds the record (keys/keys.ts); a cheaper lookup would need the key itself.
   */
  const known = new WeakMap<AuthKey, KnownKey>();
  const knownKey = (found: AuthKey, key: string) => {
    let entry = known.get(found);
    if (!entry) {
      entry = { actor: keyActor(found, key), lastUsed: found.last_used_at ? Date.parse(found.last_used_at) : 0 };
      known.set(found, entry);
    }
    return entry;
  };
  /**
   * `last_used_at`, to the hour: one write per key and hour at most (this process remembers what it
   * wrote, so concurrent requests do not each write). Best effort: a failed write must not fail the
   * request that merely used the key. Returns nothing when no write is due (nearly every request).
   */
  function markUsed(found: AuthKey, entry: KnownKey): Promise<void> | undefined {
    if (found.id.startsWith('env:')) return undefined; // TICKETING_KEYS are never stored
    const now = Date.now();
    const last = Math.max(marked.get(found.id) ?? 0, entry.lastUsed);
    if (now - last < HOUR) return undefined;
    marked.set(found.id, now);
    return keys.markUsed(found.id, new Date(now).toISOString()).catch(() => void marked.delete(found.id));
  }
  return async (ctx: Context) => {
    // Node's header object, as ctx.get reads it, without Koa's accessor (this runs on every request).
    const match = BEARER.exec(ctx.req.headers.authorization ?? '');
    if (!match) return undefined;
    const bucket = `key-failures|${ctx.ip}`;
    // While the database is known to be gone the throttle cannot be read: it is passed, not failed
    // (no statement was tried). A key this process holds (TICKETING_KEYS) still works; any other
    // answers 503, never 401, so guessing learns nothing meanwhile.
    const wait = await failures.limiter
      .wait(bucket, failures.perMinute)
      .catch((err: unknown) => (databaseKnownGone(err) ? 0 : Promise.reject(err)));
    if (wait) throw rateLimited(wait);
    const key = match[1]!;
    const found = isWellFormedKey(key) ? await keys.find(sha256(key)) : undefined;
    if (!found) {
      await failures.limiter.count(bucket, 60_000);
      throw new ApiError(401, 'invalid_api_key', 'This API key is not valid, or it was revoked.');
    }
    const entry = knownKey(found, key);
    const write = markUsed(found, entry);
    if (write) await write;
    return entry.actor;
  };
}
