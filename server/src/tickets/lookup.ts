import type { Context } from 'koa';
import type { Ticket } from '../api-types.js';
import type { Deps } from '../deps.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { TicketStore } from '../store/ticket-store.js';

/** The ticket store of the caller's key: live and test keys never see each other's tickets. */
export const storeFor = (ctx: Context, deps: Deps): TicketStore => deps.tickets[ctx.state.auth.mode];

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * With a public key, a wrong email answers exactly as an unknown ticket does, so a ticket id and an
 * email together are what prove ownership, and nothing tells which one was wrong.
 */
export function checkOwner(ctx: Context, ticket: Ticket | undefined, emailGiven: string | undefined): Ticket {
  if (!ticket) throw notFound('ticket');
  if (ctx.state.auth.kind === 'public' && emailGiven !== undefined && !sameEmail(ticket.email, emailGiven)) {
    throw notFound('ticket');
  }
  return ticket;
}

/** For reads with a public key, `email` is required (API.md, /ticket and /file). */
export function requireEmailForPublic(ctx: Context, email: string | undefined) {
  if (ctx.state.auth.kind === 'public' && !email) throw validationError('email', 'is required with a public key');
}

export async function findTicket(ctx: Context, deps: Deps, id: string, email: string | undefined): Promise<Ticket> {
  return checkOwner(ctx, await storeFor(ctx, deps).get(id), email);
}

export const secretKeyRequired = (what: string) =>
  new ApiError(403, 'secret_key_required', `${what} needs a secret key.`);
