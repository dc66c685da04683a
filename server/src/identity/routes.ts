import { routeFor } from '../http/route.js';
import { CustomerTicketListSchema, type KeyMode } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';
import { identityRequired } from '../tickets/lookup.js';
import { customerTicket } from './customer-ticket.js';

/** What the customer's own routes need from the app. */
export interface CustomerDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
}

const route = routeFor<CustomerDeps>();

/** A verified customer's tickets: at most this many, newest first (the widget's list, not an archive). */
const MY_TICKETS_LIMIT = 50;

const myTickets = route({
  method: 'get',
  path: '/my-tickets',
  access: 'customer',
  summary: 'A verified customer’s tickets, newest first',
  description:
    'Needs a public key and an X-Ticketing-Identity header the site signed (r=identity); anything else ' +
    'is 403 identity_required. Answers the newest 50 tickets of that email, on any device.',
  requestHeaders: ['X-Ticketing-Identity'],
  responses: { 200: { description: 'The customer’s tickets', schema: CustomerTicketListSchema } },
  errors: { 403: ['identity_required'] },
  async handler({ actor }, deps) {
    const email = actor.kind === 'customer' ? actor.identity : null;
    if (!email) throw identityRequired();
    const store = deps.tickets[actor.mode];
    const { items } = await store.list({ email }, MY_TICKETS_LIMIT, 0);
    const tickets = await Promise.all(items.map((i) => store.get(i.id)));
    return { body: { email, data: tickets.flatMap((t) => (t ? [customerTicket(t)] : [])) } };
  },
});

export const customerRoutes = [myTickets];
