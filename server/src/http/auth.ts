import type { Middleware } from 'koa';
import { isWellFormedKey, type KeyRing } from '../keys/keys.js';
import { ApiError } from './errors.js';
import type { Access } from './endpoints.js';
import './state.js';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Checks the key (401) and then the permission (403) before a byte of the body is read. Attached to
 * each route, so an unknown route is a 404 before the key is looked at.
 */
export function authenticate(access: Access, keyRing: () => KeyRing): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const match = BEARER.exec(header);
    if (!match) {
      throw new ApiError(401, 'missing_api_key', 'Send your API key as "Authorization: Bearer <key>".');
    }
    const key = match[1]!;
    const found = isWellFormedKey(key) ? keyRing().find(key) : undefined;
    if (!found) throw new ApiError(401, 'invalid_api_key', 'This API key is not valid, or it was revoked.');
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
