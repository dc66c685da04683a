import { ApiError, notFound, validationError } from '../http/errors.js';
import type { RequestActor, Ticket } from '../model/index.js';
import type { TicketStore } from '../store/ticket-store.js';

// The same string is the same address (and what a customer sends is usually exactly the stored one).
const sameEmail = (a: string, b: string) => a === b || a.trim().toLowerCase() === b.trim().toLowerCase();

/** Decides, for one request, whether a ticket is the caller's: throws 404 when it is not (or does not exist). */
export type OwnerCheck = <T extends Ticket>(ticket: T | undefined) => T;

/**
 * The one place that decides who may touch a ticket. Every call that names a ticket goes through it,
 * before the ticket is looked up. A ticket id alone proves nothing to a customer (the id travels in
 * mails, logs and browser histories): a customer must also send the ticket's `email`, missing or
 * blank is 400 whether or not the ticket exists, and a wrong one answers exactly as an unknown ticket
 * does, so nothing tells which of the two was wrong. A customer whose identity the shop verified
 * (identity/verify.ts) may leave `email` out: the verified one is used. While r=identity `required`
 * is on, a customer must be verified (403 identity_required) and may touch only the tickets of the
 * verified email. Support needs no proof.
 */
export function ownerCheck(actor: RequestActor, email: string | undefined): OwnerCheck {
  const customer = actor.kind === 'customer';
  const verified = customer ? (actor.identity ?? null) : null;
  if (customer && actor.identityRequired && !verified) throw identityRequired();
  const proof = customer ? (email?.trim() ? email : (verified ?? undefined)) : undefined;
  if (customer && !proof?.trim()) throw validationError('email', 'is required with a public key');
  const onlyVerified = customer && actor.identityRequired;
  return (ticket) => {
    if (!ticket) throw notFound('ticket');
    if (customer && !sameEmail(ticket.email, proof!)) throw notFound('ticket');
    if (onlyVerified && !sameEmail(ticket.email, verified!)) throw notFound('ticket');
    return ticket;
  };
}

export const identityRequired = () =>
  new ApiError(403, 'identity_required', 'This needs a customer whose identity the site has verified.');

/** With r=identity `required`, a customer files tickets only under the verified email. */
export function checkCreator(actor: RequestActor, email: string) {
  if (actor.kind !== 'customer' || !actor.identityRequired) return;
  if (!actor.identity || !sameEmail(actor.identity, email)) throw identityRequired();
}

/** Reads a ticket through the owner check. */
export async function findTicket(store: TicketStore, actor: RequestActor, id: string, email: string | undefined) {
  const check = ownerCheck(actor, email);
  return check(await store.get(id));
}

export const secretKeyRequired = (what: string) =>
  new ApiError(403, 'secret_key_required', `${what} needs a secret key.`);
