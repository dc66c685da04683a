import { ApiError } from '../http/errors.js';
import type { RequestActor } from '../model/index.js';

/**
 * How long a sign-in or a POST /v1/session/verify counts as recent: long enough to add a passkey or
 * change a setting after typing the password, short enough that a session cookie stolen later
 * (an unlocked computer, a copied cookie) cannot use it for these (issue 28).
 */
export const RECENT_VERIFICATION_MS = 10 * 60_000;

/**
 * The one guard of the actions that would let a stolen session keep the account (adding a passkey,
 * turning two-factor off, changing an agent's email or password in /admin): an agent's session must
 * have checked the password or a second factor within RECENT_VERIFICATION_MS. A secret key holds no
 * session to steal and is not asked.
 */
export function requireRecentVerification(actor: RequestActor, now: number) {
  if (actor.kind !== 'agent' || now - actor.verified_at < RECENT_VERIFICATION_MS) return;
  throw new ApiError(
    403,
    'verification_required',
    'Confirm it is you first: POST /v1/session/verify with your password or a two-factor code, then try again.',
  );
}
