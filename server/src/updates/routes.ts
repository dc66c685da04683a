import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { customerTicket } from '../identity/customer-ticket.js';
import { UpdatesSchema, type KeyMode } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { StoredTicket, TicketStore } from '../store/ticket-store.js';
import { ownerCheck } from '../tickets/lookup.js';
import { seenAnywhere } from '../tickets/seen.js';
import { emailKey, type TicketWatchers } from './watchers.js';

/** What the customer's update poll needs from the app. */
export interface UpdatesDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  watchers: TicketWatchers;
}

const route = routeFor<UpdatesDeps>();

/** Longest wait: well under the 60 s at which proxies commonly cut an idle answer. */
const MAX_WAIT_S = 25;
const MAX_WATCHED = 50;

/** `<ticket_id>:<support replies seen, or empty>:<the ticket's email>`. */
const WATCH = /^(tkt_[A-Za-z0-9]{1,100}):(\d{0,6}):(.{0,254})$/;
const watchEntry = z
  .string()
  .regex(WATCH, 'must be <ticket_id>:<replies seen>:<email>')
  .transform((v) => {
    const [, id, seen, email] = WATCH.exec(v)!;
    return { id: id!, seen: seen === '' ? null : Number(seen), email: email! };
  });

const UpdatesQuery = z.object({
  watch: z
    .union([watchEntry.transform((w) => [w]), z.array(watchEntry).max(MAX_WATCHED)])
    .optional()
    .describe('a ticket to watch, repeated: `<ticket_id>:<support replies seen>:<email>` (seen may be empty)'),
  known: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('the unread total the client shows: the answer waits while it is still right; absent, it comes at once'),
  wait: z.coerce.number().int().min(0).max(MAX_WAIT_S).default(MAX_WAIT_S).describe('seconds to wait at most'),
});

const updates = route({
  method: 'get',
  path: '/updates',
  access: 'customer',
  summary: 'Unread replies on a customer’s tickets, answered when they change (long poll)',
  description:
    'Waits up to `wait` seconds while the unread total is still `known`, and answers as soon as support ' +
    'replies to a watched ticket. Tickets whose email does not match are left out, as unknown ones are. ' +
    'A verified customer (X-Ticketing-Identity) also gets every ticket of that email.',
  query: UpdatesQuery,
  requestHeaders: ['X-Ticketing-Identity'],
  responses: {
    200: { description: 'The unread total and the watched tickets', schema: UpdatesSchema, headers: ['Cache-Control'] },
  },
  async handler({ actor, query, ctx }, deps) {
    const watched = query.watch ?? [];
    const verified = actor.kind === 'customer' ? (actor.identity ?? null) : null;
    const store = deps.tickets[actor.mode];
    // Each entry proves its ticket as /ticket does; one that does not is left out, never told apart.
    const checks = watched.map((w) => ({ ...w, owns: ownerCheck(actor, w.email || undefined) }));

    async function state() {
      const seen = new Map<string, number | null>();
      const tickets: StoredTicket[] = [];
      for (const w of checks) {
        if (seen.has(w.id)) continue;
        try {
          tickets.push(w.owns(await store.get(w.id)));
          seen.set(w.id, w.seen);
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
      }
      if (verified) {
        const { items } = await store.list({ email: verified }, MAX_WATCHED, 0);
        for (const item of items) {
          if (seen.has(item.id)) continue;
          const t = await store.get(item.id);
          if (!t) continue;
          tickets.push(t);
          seen.set(t.id, null);
        }
      }
      // Only news since the ticket was seen counts: on this device, or (a verified customer) on any
      // device. A ticket shown nowhere yet has nothing unread.
      const data = tickets.map((t) => {
        const view = customerTicket(t);
        const known = [seen.get(t.id), seenAnywhere(actor, t)].filter((n) => typeof n === 'number');
        return { ...view, unread: known.length ? Math.max(0, view.support_replies - Math.max(...known)) : 0 };
      });
      return { unread: data.reduce((n, t) => n + t.unread, 0), data };
    }

    const deadline = Date.now() + query.wait * 1000;
    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose);
    const keys = [...new Set(watched.map((w) => w.id)), ...(verified ? [emailKey(verified)] : [])];
    try {
      for (;;) {
        // Listening before reading: a reply that lands between the two still wakes this round.
        const round = new AbortController();
        const woke = deps.watchers.wait(
          actor.mode,
          keys,
          Math.max(0, deadline - Date.now()),
          AbortSignal.any([gone.signal, round.signal]),
        );
        const now = await state();
        const settled =
          query.known === undefined ||
          !keys.length ||
          now.unread !== query.known ||
          Date.now() >= deadline ||
          gone.signal.aborted ||
          deps.watchers.stopped;
        if (settled) {
          round.abort();
          await woke;
          return { body: now, headers: { 'Cache-Control': 'no-store' } };
        }
        await woke;
      }
    } finally {
      ctx.res.off('close', onClose);
    }
  },
});

export const updatesRoutes = [updates];
