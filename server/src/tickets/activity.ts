import { actorRef, newId, type ActivityEntry, type Actor, type Ticket } from '../model/index.js';
import type { StoredTicket } from '../store/ticket-store.js';

/** The fields whose changes a ticket's activity records, by the entry type they make. */
const TRACKED: [ActivityEntry['type'], (t: Ticket) => unknown][] = [
  ['status', (t) => t.status],
  ['priority', (t) => t.priority],
  ['assignee', (t) => t.agent_id],
  ['tags', (t) => t.tags],
  ['close_request', (t) => t.close_request?.by ?? null],
  ['rating', (t) => t.rating?.score ?? null],
  ['merged', (t) => t.merged_into ?? null],
  ['snoozed', (t) => t.snoozed_until ?? null],
];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `next` with an activity entry for each tracked field that differs from `previous` (who, when, from,
 * to), so the console can show the changes between the messages. Staff only: the public view drops it.
 */
export function withActivity<T extends StoredTicket>(previous: Ticket, next: T, actor: Actor, at: string): T {
  const entries: ActivityEntry[] = [];
  for (const [type, value] of TRACKED) {
    const from = value(previous);
    const to = value(next);
    if (!same(from, to)) entries.push({ id: newId('act'), type, at, actor: actorRef(actor), from, to });
  }
  return entries.length ? { ...next, activity: [...(next.activity ?? []), ...entries] } : next;
}
