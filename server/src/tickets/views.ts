import type { AuthKey } from '../keys/keys.js';
import type { PublicTicket, Ticket } from '../api-types.js';

/** What a public key sees: no internal assignment, tags or SLA deadline. */
export function publicView(t: Ticket): PublicTicket {
  const { agent_id: _a, tags: _t, due_at: _d, ...rest } = t;
  return rest;
}

export const viewFor = (auth: AuthKey, t: Ticket): Ticket | PublicTicket =>
  auth.kind === 'secret' ? t : publicView(t);
