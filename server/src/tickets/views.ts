import { isStaff, type Actor, type PublicTicket, type Reply, type Ticket } from '../model/index.js';
import type { StoredTicket } from '../store/ticket-store.js';

/** What support (and a webhook) sees: the stored record without its internal fields. */
export function fullView(t: StoredTicket): Ticket {
  const { escalated: _e, idempotency: _i, locale: _l, link_version: _v, customer_seen: _s, ...rest } = t;
  return rest;
}

/**
 * What a customer sees: no internal assignment, tags, SLA deadline or activity, no internal notes (their
 * files included), no agent's id or mail delivery state on a reply, no quoted part of a mail (theirs: they have their mail, and
 * a quote may hold history not meant for this ticket).
 */
export function publicView(t: StoredTicket): PublicTicket {
  const {
    agent_id: _a,
    tags: _t,
    due_at: _d,
    activity: _y,
    escalated: _e,
    idempotency: _i,
    locale: _l,
    link_version: _v,
    customer_seen: _s,
    quoted: _q,
    snoozed_until: _z,
    ...rest
  } = t;
  return {
    ...rest,
    replies: rest.replies.filter(shownToCustomer).map(({ agent_id: _g, quoted: _r, delivery: _m, ...r }) => r),
  };
}

/** An internal note: a reply only staff see. */
export const isNote = (r: Reply) => r.internal === true;

/**
 * Whether the customer sees this message: every customer-facing read (public view, files, the unread
 * count of /updates and /my-tickets, the waiting poll) asks this one question. Not an internal note,
 * and not a mail that only claims to be the customer's (issue 28): shown to them as their own words,
 * a forger's text ("send the refund to …") would look like something they said.
 */
export const shownToCustomer = (r: Reply) => !isNote(r) && r.unverified !== true;

/** A message support wrote to the customer (what they count as unread): no note. */
export const isSupportReply = (r: Reply) => !r.from_customer && shownToCustomer(r);

export type View = 'full' | 'public';
export const viewOf = (actor: Actor): View => (actor.kind === 'system' || isStaff(actor) ? 'full' : 'public');

export const viewFor = (actor: Actor, t: StoredTicket): Ticket | PublicTicket =>
  viewOf(actor) === 'full' ? fullView(t) : publicView(t);
