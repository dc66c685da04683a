import { z } from 'zod';
import { ApiError, notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { id } from '../http/coerce.js';
import type { KeyMode } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { StoredTicket, TicketStore } from '../store/ticket-store.js';
import { linkOpens, parseLink } from './magic-link.js';

/** What the link routes need from the app. */
export interface LinkDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  clock: () => Date;
}

const route = routeFor<LinkDeps>();

const invalid = () =>
  new ApiError(403, 'link_invalid', 'This link has expired or was revoked. Ask support for a new one.');

const LinkQuery = z.object({ token: z.string().min(1).max(300).describe('the token of a link in a customer mail') });
const LinkSchema = z.strictObject({ ticket_id: z.string(), email: z.string() });

const open = route({
  method: 'get',
  path: '/link',
  access: 'customer',
  summary: 'What a link from a customer mail opens: its ticket and the email that proves it',
  description:
    'A link is bound to one ticket and its email, expires after 30 days and stops working when support ' +
    'revokes the ticket’s links. Expired, revoked, forged, for another ticket or another mode: 403 link_invalid.',
  query: LinkQuery,
  responses: { 200: { description: 'The ticket the link opens', schema: LinkSchema, headers: ['Cache-Control'] } },
  errors: { 403: ['link_invalid'] },
  async handler({ actor, query }, deps) {
    const link = parseLink(query.token);
    if (!link || link.mode !== actor.mode) throw invalid();
    const ticket = (await deps.tickets[actor.mode].get(link.ticketId)) as StoredTicket | undefined;
    if (!ticket || !linkOpens(deps.configStore.get().link_secret, link, ticket, deps.clock())) throw invalid();
    return { body: { ticket_id: ticket.id, email: ticket.email }, headers: { 'Cache-Control': 'no-store' } };
  },
});

const RevokeInput = z.object({ ticket_id: id });

const revoke = route({
  method: 'post',
  path: '/revoke-links',
  access: 'staff',
  summary: 'Make every link already mailed for a ticket stop working (a leaked link)',
  description: 'Mails sent afterwards carry new links.',
  body: { schema: RevokeInput, encodings: ['json', 'form', 'multipart'] },
  responses: {
    200: {
      description: 'Revoked',
      schema: z.strictObject({ ticket_id: z.string(), revoked: z.literal(true) }),
    },
  },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body }, deps) {
    const updated = await deps.tickets[actor.mode].update(body.ticket_id, (current) => ({
      ticket: { ...current, link_version: ((current as StoredTicket).link_version ?? 0) + 1 },
    }));
    if (!updated) throw notFound('ticket');
    return { body: { ticket_id: body.ticket_id, revoked: true as const } };
  },
});

export const linkRoutes = [open, revoke];
