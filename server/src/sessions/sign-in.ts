import type { Context } from 'koa';
import { ApiError } from '../http/errors.js';
import { sha256 } from '../keys/keys.js';
import type { SessionView, StoredAgent } from '../model/index.js';
import { verifyPassword } from '../settings/passwords.js';
import { useSecondFactor } from './totp.js';
import {
  cookieName,
  csrfToken,
  newSessionId,
  passwordFingerprint,
  setSessionCookie,
  type SessionDeps,
} from './session-cookie.js';

/** Failed sign-ins allowed in the window, per email and per client address. */
const SIGN_IN_LIMITS = { windowMs: 15 * 60_000, perEmail: 5, perAddress: 20 };

const emailKey = (email: string) => `email|${email.trim().toLowerCase()}`;
const addressKey = (ip: string) => `ip|${ip}`;

const invalidCredentials = () => new ApiError(401, 'invalid_credentials', 'The email or the password is wrong.');

/**
 * Counts a password attempt under the email and the client address before the password is checked
 * (to be taken back with `forgive` if it was right): attempts sent all at once see each other, so no
 * more than the limit of them ever reach the check. Past the limit: 429, right password or not.
 */
export async function countAttempt(deps: SessionDeps, email: string, ip: string) {
  const now = deps.clock().getTime();
  const keys = [emailKey(email), addressKey(ip)] as const;
  await deps.sessions.addFailure(keys, now);
  const since = now - SIGN_IN_LIMITS.windowMs;
  const [byEmail, byAddress] = await Promise.all(keys.map((k) => deps.sessions.failures(k, since)));
  // Each list holds this attempt too: the ones before it are the others.
  const wait = Math.max(
    waitMs(byEmail!, SIGN_IN_LIMITS.perEmail, now),
    waitMs(byAddress!, SIGN_IN_LIMITS.perAddress, now),
  );
  if (wait > 0) {
    await deps.sessions.removeFailure(keys, now);
    throw new ApiError(429, 'too_many_attempts', 'Too many failed sign-ins. Try again later.', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) },
    });
  }
  return {
    now,
    keys,
    /** The attempt was no guess (the right password): it no longer counts. */
    forgive: () => deps.sessions.removeFailure(keys, now),
  };
}

/**
 * Checks an email and password (and, with two-factor on, the code), with the brute-force limits
 * (countAttempt). An unknown email costs the same scrypt as a known one. A successful sign-in forgets
 * the email's failures.
 */
export async function checkPassword(
  deps: SessionDeps,
  input: { email: string; password: string; code?: string | undefined },
  ip: string,
): Promise<StoredAgent> {
  const { now, keys, forgive } = await countAttempt(deps, input.email, ip);
  const email = input.email.trim().toLowerCase();
  const agent = deps.configStore.get().agents.find((a) => a.email.toLowerCase() === email && a.active);
  const ok = await verifyPassword(input.password, agent?.password_hash ?? null);
  if (!agent || !ok) throw invalidCredentials();
  if (agent.two_factor_secret) {
    if (!input.code) {
      // The right password without a code is no guess: it is taken back, and the code is asked for.
      await forgive();
      throw new ApiError(401, 'two_factor_required', 'Send the code from your authenticator app as `code`.', {
        param: 'code',
      });
    }
    // A wrong code stays counted: codes are guessed no faster than passwords.
    if (!(await useSecondFactor(deps.configStore, agent, input.code, now)))
      throw new ApiError(401, 'invalid_code', 'This code is wrong, or was used already.', { param: 'code' });
  }
  await forgive();
  await deps.sessions.clearFailures(keys[0]);
  return deps.configStore.get().agents.find((a) => a.id === agent.id) ?? agent;
}

/** How long until fewer than `limit` failures other than this one are in the window; 0: not limited. */
function waitMs(times: number[], limit: number, now: number): number {
  const others = [...times];
  const mine = others.lastIndexOf(now);
  if (mine >= 0) others.splice(mine, 1);
  if (others.length < limit) return 0;
  return others[others.length - limit]! + SIGN_IN_LIMITS.windowMs - now;
}

/** The console's view of the agent and the session's CSRF token. */
export function sessionView(agent: StoredAgent, sessionId: string): SessionView {
  return {
    agent: {
      id: agent.id,
      name: agent.name,
      email: agent.email,
      role: agent.role,
      two_factor_enabled: agent.two_factor_secret !== null,
      passkey_count: agent.passkeys.length,
      must_change_password: agent.must_change_password,
      signature: agent.signature,
      locale: agent.locale === 'en' || agent.locale === 'de' ? agent.locale : null,
      available: agent.available,
      density: agent.density,
      saved_views: agent.saved_views,
    },
    csrf_token: csrfToken(sessionId),
  };
}

/**
 * Starts a session with a new id (never one the browser brought: no fixation), sets its cookie, and
 * answers what sign-in answers. The session the browser brought, whoever's, ends: every way in (a
 * sign-in, a passkey, a mailed link, a new password, a re-check) leaves one new session behind.
 * Expired sessions are swept on the way.
 */
export async function startSession(ctx: Context, deps: SessionDeps, agent: StoredAgent): Promise<SessionView> {
  const old = ctx.cookies.get(cookieName(deps.config));
  if (old) await deps.sessions.remove(sha256(old));
  const now = deps.clock().getTime();
  const id = newSessionId();
  await deps.sessions.removeExpired(now - deps.config.sessions.idleMs, now - deps.config.sessions.maxMs);
  await deps.sessions.add({
    hash: sha256(id),
    agent_id: agent.id,
    password: passwordFingerprint(agent),
    created_at: now,
    last_seen_at: now,
  });
  setSessionCookie(ctx, deps.config, id);
  return sessionView(agent, id);
}
