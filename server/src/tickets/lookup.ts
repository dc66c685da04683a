import { ApiError, notFound, validationError } from '../http/errors.js';
import type { RequestActor, Ticket } from '../model/index.js';
import type { TicketStore } from '../store/ticket-store.js';

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Decides, for one request, whether a ticket is the caller's: throws 404 when it is not (or does not exist). */
export type OwnerCheck = <T extends Ticket>(ticket: T | undefined) => T;

/**
 * The one place that decides who may touch a ticket. Every call that names a ticket goes through it,
 * before the ticket is looked up. A ticket id alone proves nothing to a customer (the id travels in
 * mails, logs and browser histories): a customer must also send the ticket's `email`, missing or
 * blank is 400 whether or not the ticket exists, and a wrong one answers exactly as an unknown ticket
 * does, so nothing tells which of the two was wrong. Support needs no proof.
 */
export function ownerCheck(actor: RequestActor, email: string | undefined): OwnerCheck {
  const customer = actor.kind === 'customer';
  if (customer && !email?.trim()) throw validationError('email', 'is required with a public key');
  return (ticket) => {
    if (!ticket) throw notFound('ticket');
    if (customer && !sameEmail(ticket.email, email!)) throw notFound('ticket');
    return ticket;
  };
}

/** Reads a ticket through the owner check. */
export async function findTicket(store: TicketStore, actor: RequestActor, id: string, email: string | undefined) {
  const check = ownerCheck(actor, email);
  return check(await store.get(id));
}

export const secretKeyRequired = (what: string) =>
  new ApiError(403, 'secret_key_required', `${what} needs a secret key.`);
