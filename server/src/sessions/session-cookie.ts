import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../config/config.js';
import type { Credential } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { API_PREFIX } from '../http/route.js';
import { sha256 } from '../keys/keys.js';
import { randomToken, type StoredAgent, type StoredSession } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { SessionStore } from '../store/session-store.js';

/** What a session needs from the app. */
export interface SessionDeps {
  config: Pick<Config, 'publicUrl' | 'sessions'>;
  configStore: ConfigStore;
  sessions: SessionStore;
  clock: () => Date;
}

/** With https the cookie is `__Host-` prefixed: the browser then takes it only Secure, on Path=/, without Domain. */
const isSecure = (config: Pick<Config, 'publicUrl'>) => config.publicUrl?.startsWith('https:') ?? false;
export const cookieName = (config: Pick<Config, 'publicUrl'>) =>
  isSecure(config) ? '__Host-ticketing_session' : 'ticketing_session';

/** The session's id, 256 bits: only its SHA-256 is stored. */
export const newSessionId = () => randomToken(43);
/**
 * The CSRF token of a session, derived from its id (which only the browser holds), so nothing more
 * is stored and a copy of the store gives no token either.
 */
export const csrfToken = (sessionId: string) => sha256(`csrf|${sessionId}`);
/** What a session remembers of the password it began with (StoredSession.password). */
export const passwordFingerprint = (agent: Pick<StoredAgent, 'password_hash'>) =>
  sha256(`password|${agent.password_hash ?? ''}`).slice(0, 32);

export function setSessionCookie(ctx: Context, config: SessionDeps['config'], id: string) {
  const attrs = [
    `${cookieName(config)}=${id}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.floor(config.sessions.maxMs / 1000)}`,
  ];
  if (isSecure(config)) attrs.push('Secure');
  ctx.append('Set-Cookie', attrs.join('; '));
}

export function clearSessionCookie(ctx: Context, config: SessionDeps['config']) {
  const attrs = [`${cookieName(config)}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (isSecure(config)) attrs.push('Secure');
  ctx.append('Set-Cookie', attrs.join('; '));
}

const csrfFailed = (why: string) => new ApiError(403, 'csrf_failed', why);

/**
 * An Origin header, when a browser sends one, must be this server's own: the public URL's origin or
 * the one the request was made to. A page of another site that gets a request through is refused.
 */
export function checkOrigin(ctx: Context, config: Pick<Config, 'publicUrl'>) {
  const origin = ctx.get('Origin');
  if (!origin) return;
  // Koa 3's ctx.origin is the Origin header itself: the server's own is built from protocol and host.
  const own = new Set([`${ctx.protocol}://${ctx.host}`]);
  if (config.publicUrl) own.add(new URL(config.publicUrl).origin);
  if (!own.has(origin)) throw csrfFailed('This request came from another site.');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What an agent with a one-time password may still do: see who they are, sign out, choose a password. */
const BEFORE_PASSWORD_CHANGE = new Set([
  `GET ${API_PREFIX}/session`,
  `DELETE ${API_PREFIX}/session`,
  `POST ${API_PREFIX}/session/password`,
]);

/** Whether a session is still good for its agent at `now`. */
function sessionHolds(
  deps: Pick<SessionDeps, 'config'>,
  session: StoredSession,
  agent: StoredAgent | undefined,
  now: number,
): agent is StoredAgent {
  return (
    agent !== undefined &&
    agent.active &&
    session.password === passwordFingerprint(agent) &&
    now - session.last_seen_at < deps.config.sessions.idleMs &&
    now - session.created_at < deps.config.sessions.maxMs
  );
}

// A session's last use is written at most once a minute: idle expiry is in hours, and writing on
// every request would cost a durable write each.
const TOUCH_EVERY_MS = 60_000;

/** The session a request's cookie names, if it still holds (the cookie's value and the stored session). */
export async function currentSession(ctx: Context, deps: SessionDeps) {
  const id = ctx.cookies.get(cookieName(deps.config));
  if (!id) return undefined;
  const session = await deps.sessions.find(sha256(id));
  const agent = session && deps.configStore.get().agents.find((a) => a.id === session.agent_id);
  const now = deps.clock().getTime();
  if (!session || !sessionHolds(deps, session, agent, now)) {
    if (session) await deps.sessions.remove(session.hash);
    clearSessionCookie(ctx, deps.config);
    throw new ApiError(401, 'not_signed_in', 'Your session has ended: sign in again.');
  }
  return { id, session, agent: agent as StoredAgent, now };
}

/**
 * The console's session cookie as a credential beside the bearer key (http/auth.ts): the agent may
 * do what a secret key may. An unsafe method needs the session's CSRF token in X-CSRF-Token and,
 * when the browser sends an Origin, this server's own; else 403 csrf_failed. A cookie that names no
 * session that holds is 401 not_signed_in (and the browser is told to drop it).
 */
export function sessionCookie(deps: SessionDeps): Credential {
  return async (ctx) => {
    const found = await currentSession(ctx, deps);
    if (!found) return undefined;
    const { id, session, agent, now } = found;
    if (!SAFE_METHODS.has(ctx.method)) {
      const sent = Buffer.from(ctx.get('X-CSRF-Token'));
      const expected = Buffer.from(csrfToken(id));
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
        throw csrfFailed('Send the session’s CSRF token in X-CSRF-Token.');
      checkOrigin(ctx, deps.config);
    }
    if (agent.must_change_password && !BEFORE_PASSWORD_CHANGE.has(`${ctx.method} ${ctx.path}`))
      throw new ApiError(403, 'password_change_required', 'Choose a new password first (POST /v1/session/password).');
    // A stream checking its credential again (ctx.state.rechecking) is no use by the agent: an open
    // console tab alone must not keep the session from its idle expiry.
    if (now - session.last_seen_at >= TOUCH_EVERY_MS && !ctx.state.rechecking)
      await deps.sessions.touch(session.hash, now);
    return {
      kind: 'agent',
      mode: 'live',
      agent: { id: agent.id, name: agent.name, role: agent.role },
      session: session.hash.slice(0, 12),
      // A session is verified when it begins (sign-in, or POST /v1/session/verify, which starts a new one).
      verified_at: session.created_at,
    };
  };
}
