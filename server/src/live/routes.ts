import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { id, optional } from '../http/coerce.js';
import { ApiError, notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import type { KeyMode } from '../model/index.js';
import type { TicketStore } from '../store/ticket-store.js';
import type { LiveEvents } from './live-events.js';
import { selfOf } from './live-events.js';

/** What the live routes need from the app. */
export interface LiveDeps {
  live: LiveEvents;
  tickets: Record<KeyMode, TicketStore>;
}

const route = routeFor<LiveDeps>();

/** A client whose unsent events pass this is too slow: its stream ends, and it resumes by Last-Event-ID. */
const MAX_BUFFERED = 1024 * 1024;

/** A full cap frees when a stream closes, which the server cannot foresee: try again in a while. */
const RETRY_AFTER_SECONDS = 30;

const EventsQuery = z.object({
  last_event_id: optional(z.string().max(100)).describe(
    'where to resume, for clients that cannot send the Last-Event-ID header',
  ),
});

const events = route({
  method: 'get',
  path: '/events',
  access: 'staff',
  summary: 'Live events of tickets (server-sent events)',
  description:
    'A text/event-stream: ticket.created, ticket.replied, ticket.note_added, ticket.mentioned, ticket.changed and ' +
    'ticket.deleted with `{ ticket: <list row>, by: { kind, id?, name? } }` and an `id:` (ticket.mentioned also ' +
    'with `mentioned`: the agents the new note names); `typing` with ' +
    '`{ ticket_id, agent: { id, name } }`, and `agent.viewing` with the same data (/viewing); `reset` when the events after Last-Event-ID are no longer kept ' +
    '(reload); a `: ping` comment keeps the connection open. The stream ends within seconds of its ' +
    'credential ending (a key revoked; the agent signed out, deactivated or given a new password): the ' +
    'reconnect then gets 401. At most 10 streams per credential and 100 per client address are open at ' +
    'once (TICKETING_EVENTS_PER_CREDENTIAL, TICKETING_EVENTS_PER_ADDRESS): beyond, 429 rate_limited with Retry-After.',
  query: EventsQuery,
  requestHeaders: ['Last-Event-ID'],
  errors: { 429: ['rate_limited'] },
  responses: {
    200: {
      description: 'The stream, until the client leaves',
      media: { 'text/event-stream': { type: 'string' } },
      headers: ['Cache-Control'],
    },
  },
  async handler({ actor, query, ctx, ip, header, credentialHolds }, deps) {
    // A session counts apart from the same agent's other sessions; a key is one credential.
    const credential = actor.kind === 'agent' ? `session:${actor.session}` : `key:${actor.key.id}`;
    const full = deps.live.full(credential, ip);
    if (full)
      throw new ApiError(
        429,
        'rate_limited',
        full === 'credential'
          ? 'Too many event streams are open with this credential: close one first.'
          : 'Too many event streams are open from this address: close one first.',
        { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      );
    const last = header('Last-Event-ID') || query.last_event_id;
    const stream = new PassThrough();
    // A long-lived answer: no socket timeout, and each event leaves at once.
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.req.socket.setKeepAlive(true);
    ctx.type = 'text/event-stream';
    ctx.body = stream;
    const disconnect = deps.live.connect(actor.mode, selfOf(actor), last || undefined, {
      credential,
      address: ip,
      holds: credentialHolds,
      write: (chunk) => {
        if (stream.writableLength > MAX_BUFFERED) return false;
        stream.write(chunk);
        return true;
      },
      end: () => stream.end(),
    });
    ctx.res.once('close', disconnect); // the client left (the response's close, not the request's, which may come early)
    stream.once('close', disconnect);
    return { headers: { 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' } };
  },
});

const TypingInput = z.object({ ticket_id: id });

const typing = route({
  method: 'post',
  path: '/typing',
  access: 'staff',
  summary: 'Tell the other listeners of /events that you are writing on a ticket',
  description: 'Sends a `typing` event to every other listener; repeat every few seconds while writing.',
  body: { schema: TypingInput, encodings: ['json', 'form', 'multipart'] },
  responses: { 204: { description: 'Sent' } },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body }, deps) {
    if (!(await deps.tickets[actor.mode].get(body.ticket_id))) throw notFound('ticket');
    await deps.live.typing(actor, body.ticket_id);
    return { status: 204 };
  },
});

const viewing = route({
  method: 'post',
  path: '/viewing',
  access: 'staff',
  summary: 'Tell the other listeners of /events that you have a ticket open',
  description:
    'Sends an `agent.viewing` event (`{ ticket_id, agent: { id, name } }`) to every other listener; repeat ' +
    'every few seconds while the ticket stays open (listeners forget a viewer they have not heard of for a while).',
  body: { schema: TypingInput, encodings: ['json', 'form', 'multipart'] },
  responses: { 204: { description: 'Sent' } },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body }, deps) {
    if (!(await deps.tickets[actor.mode].get(body.ticket_id))) throw notFound('ticket');
    await deps.live.typing(actor, body.ticket_id, 'viewing');
    return { status: 204 };
  },
});

export const liveRoutes = [events, typing, viewing];
