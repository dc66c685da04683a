import type { AuditLog } from '../audit/audit.js';
import type { Config } from '../config/config.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { ApiError } from '../http/errors.js';
import type { RequestActor, StoredAgent } from '../model/index.js';
import type { SessionDeps } from './session-cookie.js';

/** What the session routes need from the app. */
export interface SessionRouteDeps extends SessionDeps {
  config: Pick<Config, 'publicUrl' | 'sessions' | 'rateLimit'>;
  audit: AuditLog;
  /** Open routes that store something (passkey challenges) count requests per address here. */
  rateLimiter: RateLimiter;
}

/** The routes below need a session, not a key: a key holder has no session to show or end. */
export function agentOf(actor: RequestActor) {
  if (actor.kind !== 'agent')
    throw new ApiError(403, 'session_required', 'This is about an agent’s session: sign in with POST /v1/session.');
  return actor;
}

/** The agent as stored now (a session's agent may have been changed since it began). */
export const agentNow = (deps: SessionRouteDeps, id: string) => {
  const agent = deps.configStore.get().agents.find((a) => a.id === id);
  if (!agent) throw new ApiError(401, 'not_signed_in', 'Your session has ended: sign in again.');
  return agent;
};
export const setAgent = (deps: SessionRouteDeps, id: string, change: (a: StoredAgent) => void) =>
  deps.configStore.update((d) => {
    for (const a of d.agents) if (a.id === id) change(a);
  });
