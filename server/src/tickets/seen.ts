import { sameEmail, type RequestActor } from '../model/index.js';
import type { StoredTicket, TicketStore } from '../store/ticket-store.js';
import { isSupportReply } from './views.js';

const supportReplies = (t: StoredTicket) => t.replies.filter(isSupportReply).length;

const isVerifiedOwner = (actor: RequestActor, t: StoredTicket) => {
  const verified = actor.kind === 'customer' ? actor.identity : undefined;
  return Boolean(verified && sameEmail(t.email, verified));
};

/**
 * The support replies a verified customer has seen of this ticket on any device; undefined when the
 * caller is not the ticket's verified customer (an email alone proves too little to speak for every
 * device) or it was never shown to them (a ticket filed by mail: its replies were read there).
 */
export const seenAnywhere = (actor: RequestActor, t: StoredTicket): number | undefined =>
  isVerifiedOwner(actor, t) ? t.customer_seen : undefined;

/**
 * A verified customer was shown the ticket (GET /ticket): what they saw is kept with it, so the unread
 * badge of their other devices (GET /updates) counts only what came after. Written only when it grows;
 * the customer's view (and its ETag) does not show it.
 */
export async function markSeen(store: TicketStore, actor: RequestActor, shown: StoredTicket) {
  const seen = supportReplies(shown);
  if (!isVerifiedOwner(actor, shown) || (shown.customer_seen ?? -1) >= seen) return;
  await store.update(shown.id, (current) => ({
    ticket: { ...current, customer_seen: Math.max(current.customer_seen ?? 0, seen) },
  }));
}
