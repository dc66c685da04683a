import type { Middleware } from 'koa';
import { isWellFormedKey, type KeyRing } from '../keys/keys.js';
import { ApiError } from './errors.js';
import { rateLimited, type RateLimiter } from './rate-limit.js';
import type { Access } from './endpoints.js';
import './state.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** Failed key lookups allowed per client address and minute (`TICKETING_KEY_FAILURES_PER_MINUTE`). */
export interface KeyFailureLimit {
  limiter: RateLimiter;
  perMinute: number;
}

/**
 * Checks the key (401) and then the permission (403) before a byte of the body is read. Attached to
 * each route, so an unknown route is a 404 before the key is looked at.
 *
 * An address whose key lookups failed `perMinute` times in a minute gets 429 for the rest of that
 * minute, before its key is even looked at (so it costs nothing, and a right key does not help). This
 * stays on with TICKETING_RATE_LIMIT=off: a client with a valid key never fails a lookup, so it
 * never meets this limit, and guessing keys is never a load test.
 */
export function authenticate(access: Access, keyRing: () => KeyRing, failures: KeyFailureLimit): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const match = BEARER.exec(header);
    if (!match) {
      throw new ApiError(401, 'missing_api_key', 'Send your API key as "Authorization: Bearer <key>".');
    }
    const bucket = `key-failures|${ctx.ip}`;
    const wait = failures.limiter.wait(bucket, failures.perMinute);
    if (wait) throw rateLimited(wait);
    const key = match[1]!;
    const found = isWellFormedKey(key) ? keyRing().find(key) : undefined;
    if (!found) {
      failures.limiter.count(bucket, 60_000);
      throw new ApiError(401, 'invalid_api_key', 'This API key is not valid, or it was revoked.');
    }
    ctx.state.auth = found;

    if (access === 'sk' && found.kind !== 'secret') {
      throw new ApiError(403, 'secret_key_required', 'This endpoint needs a secret key.');
    }
    if (access === 'sk_live' && !(found.kind === 'secret' && found.mode === 'live')) {
      throw new ApiError(
        403,
        'live_secret_key_required',
        'This needs a live secret key (sk_live_): it changes live settings.',
      );
    }
    const origin = ctx.get('Origin');
    if (found.kind === 'public' && found.origins.length && origin && !found.origins.includes(origin)) {
      throw new ApiError(403, 'origin_not_allowed', 'This public key may not be used from this site.');
    }
    await next();
  };
}

export const isSecret = (auth: { kind: string }) => auth.kind === 'secret';
