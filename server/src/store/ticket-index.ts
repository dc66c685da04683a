import type { Ticket, TicketListItem } from '../api-types.js';

export interface ListFilter {
  status?: string;
  category?: string;
  priority?: string;
  agent_id?: string;
  email?: string;
  tag?: string;
  /** Case-insensitive substring of subject, name, email or message. */
  q?: string;
}

/** What the scheduler needs to know of every ticket, without reading its file. */
export interface AutomationFacts {
  /** When support first replied, or null. */
  firstResponseAt: string | null;
  /** The customer's last word: their last reply, or the ticket's creation. */
  lastCustomerAt: string;
  /** Escalation entries that have fired for this ticket. */
  escalated: string[];
}

interface Entry extends AutomationFacts {
  item: TicketListItem;
  /** Kept for `q`, which searches the message too; not part of the list view. */
  message: string;
}

/** Internal fields of the stored record that no view shows. */
export type StoredTicket = Ticket & { escalated?: string[] };

function entryOf(t: StoredTicket): Entry {
  let lastCustomerAt = t.created_at;
  let firstResponseAt: string | null = null;
  for (const r of t.replies) {
    if (r.from_customer) lastCustomerAt = r.created_at;
    else firstResponseAt ??= r.created_at;
  }
  return { item: listItem(t), message: t.message, firstResponseAt, lastCustomerAt, escalated: t.escalated ?? [] };
}

export function listItem(t: StoredTicket): TicketListItem {
  const { message: _m, replies, attachments: _a, escalated: _e, ...rest } = t;
  return {
    ...rest,
    reply_count: replies.length,
    last_reply_at: replies.length ? replies[replies.length - 1]!.created_at : null,
  };
}

const before = (a: TicketListItem, b: TicketListItem) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);

/**
 * Every ticket's list view, in memory, oldest first, so /list never touches the disk. Built at start
 * and updated after every durable write; at 100k tickets a filtered page is one pass over an array.
 */
export class TicketIndex {
  private byId = new Map<string, Entry>();
  private ordered: Entry[] = [];

  get size() {
    return this.ordered.length;
  }

  has(id: string) {
    return this.byId.has(id);
  }

  /** Loads many at once (start-up): one sort instead of one insert each. */
  load(tickets: Iterable<Ticket>) {
    for (const t of tickets) {
      const entry = entryOf(t);
      this.byId.set(t.id, entry);
      this.ordered.push(entry);
    }
    this.ordered.sort((a, b) => (before(a.item, b.item) ? -1 : before(b.item, a.item) ? 1 : 0));
  }

  put(t: StoredTicket) {
    const entry = entryOf(t);
    const existing = this.byId.get(t.id);
    this.byId.set(t.id, entry);
    if (existing) {
      this.ordered[this.position(existing.item)] = entry;
      return;
    }
    const last = this.ordered[this.ordered.length - 1];
    if (!last || before(last.item, entry.item)) this.ordered.push(entry);
    else this.ordered.splice(this.position(entry.item), 0, entry);
  }

  remove(id: string) {
    const existing = this.byId.get(id);
    if (!existing) return;
    this.byId.delete(id);
    this.ordered.splice(this.position(existing.item), 1);
  }

  /** Newest first. */
  list(filter: ListFilter, limit: number, offset: number): { items: TicketListItem[]; total: number } {
    const email = filter.email?.toLowerCase();
    const q = filter.q?.toLowerCase();
    const items: TicketListItem[] = [];
    let total = 0;
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const { item, message } = this.ordered[i]!;
      if (filter.status !== undefined && item.status !== filter.status) continue;
      if (filter.category !== undefined && item.category !== filter.category) continue;
      if (filter.priority !== undefined && item.priority !== filter.priority) continue;
      if (filter.agent_id !== undefined && item.agent_id !== filter.agent_id) continue;
      if (email !== undefined && item.email.toLowerCase() !== email) continue;
      if (filter.tag !== undefined && !item.tags.includes(filter.tag)) continue;
      if (
        q !== undefined &&
        !item.subject.toLowerCase().includes(q) &&
        !item.name.toLowerCase().includes(q) &&
        !item.email.toLowerCase().includes(q) &&
        !message.toLowerCase().includes(q)
      ) {
        continue;
      }
      if (total >= offset && items.length < limit) items.push(item);
      total++;
    }
    return { items, total };
  }

  /** Every ticket with its automation facts, oldest first (the scheduler's scan). */
  *scan(): IterableIterator<{ item: TicketListItem } & AutomationFacts> {
    for (const e of this.ordered) yield e;
  }

  /** Binary search for the slot of `item` by (created_at, id). */
  private position(item: TicketListItem): number {
    let lo = 0;
    let hi = this.ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.ordered[mid]!.item, item)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
