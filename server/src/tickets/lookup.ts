import type { Context } from 'koa';
import type { Ticket } from '../model/index.js';
import type { Deps } from '../deps.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { TicketStore } from '../store/ticket-store.js';

/** The ticket store of the caller's key: live and test keys never see each other's tickets. */
export const storeFor = (ctx: Context, deps: Deps): TicketStore => deps.tickets[ctx.state.auth.mode];

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Decides, for one request, whether a ticket is the caller's: throws 404 when it is not (or does not exist). */
export type OwnerCheck = (ticket: Ticket | undefined) => Ticket;

/**
 * The one place that decides who may touch a ticket. Every call that names a ticket goes through it,
 * before the ticket is looked up. A ticket id alone proves nothing to a public key (the id travels in
 * mails, logs and browser histories): a public key must also send the ticket's `email`, missing or
 * blank is 400 whether or not the ticket exists, and a wrong one answers exactly as an unknown ticket
 * does, so nothing tells which of the two was wrong. A secret key needs no proof.
 */
export function ownerCheck(ctx: Context, email: string | undefined): OwnerCheck {
  const isPublic = ctx.state.auth.kind === 'public';
  if (isPublic && !email?.trim()) throw validationError('email', 'is required with a public key');
  return (ticket) => {
    if (!ticket) throw notFound('ticket');
    if (isPublic && !sameEmail(ticket.email, email!)) throw notFound('ticket');
    return ticket;
  };
}

/** Reads a ticket through the owner check. */
export async function findTicket(ctx: Context, deps: Deps, id: string, email: string | undefined): Promise<Ticket> {
  const check = ownerCheck(ctx, email);
  return check(await storeFor(ctx, deps).get(id));
}

export const secretKeyRequired = (what: string) =>
  new ApiError(403, 'secret_key_required', `${what} needs a secret key.`);
