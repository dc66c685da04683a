import { validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import type { KeyMode } from '../model/index.js';
import type { TicketStore } from '../store/ticket-store.js';
import { SearchQuery, SearchResultsSchema } from './schema.js';

/** What /search needs from the app. */
export interface SearchDeps {
  tickets: Record<KeyMode, TicketStore>;
}

const route = routeFor<SearchDeps>();

// A cursor is the offset of the next page, opaque to clients (base64url), so its form may change.
const cursorOf = (offset: number) => Buffer.from(`o${offset}`).toString('base64url');
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) throw validationError('cursor', 'is not a cursor this search gave');
  return Number(m[1]);
}

const search = route({
  method: 'get',
  path: '/search',
  access: 'staff',
  summary: 'Search every ticket: by number, id, email, name, subject, messages, notes and tags',
  description:
    'Tickets of any status and view. A number (`1042`, `#1042`) or an id names one ticket exactly, which ' +
    'comes first; otherwise every word must match the beginning of a word of the ticket (`dish` finds ' +
    '"dishwasher"), and tickets where it is in the subject rank above those with it in a message; then ' +
    'newest first. Internal notes are searched too: only secret keys and agents may search. On PostgreSQL at ' +
    'most the newest 500 matches are ranked; a query with a rarer word (in at most 2 % of the tickets, and ' +
    '20,000) checks its other words on the newest 1,000 tickets holding it, one of commoner words only looks ' +
    'at the newest 5,000 tickets: when that leaves matches out, `total_capped` is true and `total` a lower ' +
    'bound (a rarer word, an email or a number reaches older tickets).',
  query: SearchQuery,
  responses: { 200: { description: 'A page of matching tickets, best first', schema: SearchResultsSchema } },
  async handler({ actor, query }, deps) {
    const offset = offsetOf(query.cursor);
    const { items, total, capped } = await deps.tickets[actor.mode].search(query.q, query.limit, offset);
    const next = offset + items.length;
    const next_cursor = items.length && next < total ? cursorOf(next) : null;
    return { body: { data: items, total, ...(capped ? { total_capped: true as const } : {}), next_cursor } };
  },
});

export const searchRoutes = [search];
