import type { AuthKey } from '../keys/keys.js';
import type { PublicTicket, Ticket } from '../model/index.js';
import type { StoredTicket } from '../store/ticket-index.js';

/** What a secret key (and a webhook) sees: the stored record without its internal fields. */
export function fullView(t: StoredTicket): Ticket {
  const { escalated: _e, idempotency: _i, ...rest } = t;
  return rest;
}

/** What a public key sees: no internal assignment, tags or SLA deadline. */
export function publicView(t: StoredTicket): PublicTicket {
  const { agent_id: _a, tags: _t, due_at: _d, escalated: _e, idempotency: _i, ...rest } = t;
  return rest;
}

export const viewFor = (auth: AuthKey, t: Ticket): Ticket | PublicTicket =>
  auth.kind === 'secret' ? fullView(t) : publicView(t);
