import { noViews, type Counts, type InboxView, type ListSort, type TicketListItem } from '../model/index.js';
import { TEXT_SEPARATOR, type SearchSource } from './search-index.js';
import { NEWEST, type AutomationFacts, type ListContext, type ListFilter, type StoredTicket } from './ticket-store.js';

interface Entry extends AutomationFacts {
  item: TicketListItem;
  /**
   * The message and every reply and note, lower-cased once (bodyText): `q` searches them here and
   * the subject, name and email in the item (matches).
   */
  text: string;
  /** The customer spoke last, or nobody answered yet (whatever the status): `needs_reply` when open. */
  waitingUs: boolean;
}

/** Priorities by urgency (sort=priority: highest first). */
export const PRIORITY_RANK: Record<string, number> = { low: 0, normal: 1, high: 2, urgent: 3 };

/**
 * What `q` searches: subject, name, email, message, and every reply and note, lower-cased, with a
 * separator no text holds between them (a query cannot match across two). The search index reads
 * a ticket's words from it at start (searchSource).
 */
export function searchText(t: StoredTicket): string {
  return [t.subject, t.name, t.email, t.message, ...t.replies.map((r) => r.message)].join(TEXT_SEPARATOR).toLowerCase();
}

/**
 * The message, every reply and note, lower-cased, joined as in searchText: the part of it the list
 * index keeps (the subject, name and email are in the list item already; at 100k tickets a second,
 * lower-cased copy of them took 8 MB).
 */
function bodyText(t: StoredTicket): string {
  return [t.message, ...t.replies.map((r) => r.message)].join(TEXT_SEPARATOR).toLowerCase();
}

/** Whether `q` (lower-cased) is in what searchText(t) holds, read from an entry. */
function matches(e: Entry, q: string): boolean {
  const { subject, name, email } = e.item;
  // A query holding the separator could match across two texts, as it could in searchText's whole.
  if (q.includes(TEXT_SEPARATOR))
    return [subject, name, email, ''].join(TEXT_SEPARATOR).toLowerCase().concat(e.text).includes(q);
  return (
    e.text.includes(q) ||
    subject.toLowerCase().includes(q) ||
    name.toLowerCase().includes(q) ||
    email.toLowerCase().includes(q)
  );
}

/** Whether the customer has the last word: their last reply (notes aside) is the newest, or nobody answered. */
export function customerSpokeLast(t: StoredTicket): boolean {
  for (let i = t.replies.length - 1; i >= 0; i--) {
    const r = t.replies[i]!;
    if (!r.internal) return r.from_customer;
  }
  return true;
}

const PREVIEW = 200;
// White space that collapsing would change: a run of two, or any white space but a plain space.
const UNCOLLAPSED = /\s\s|[^\S ]/;
/**
 * The start of a text for a list row: white space collapsed, at most PREVIEW characters. Most
 * messages have single spaces only: a test is several times cheaper than a replace that rebuilds
 * the string (start-up makes a preview of every ticket).
 */
const preview = (text: string) => {
  const start = text.slice(0, PREVIEW * 2);
  const cut = (UNCOLLAPSED.test(start) ? start.replace(/\s+/g, ' ') : start).trim().slice(0, PREVIEW);
  // A part of the text is a slice of it in V8 and would keep the whole text alive in the list
  // index (a 50,000-character message for a 200-character preview): a copy keeps only the part.
  return cut.length < text.length ? flat(cut) : cut;
};

/** A string of its own, not a slice of a longer one (JSON gives back exactly the same characters). */
const flat = (s: string) => JSON.parse(JSON.stringify(s)) as string;

/** What the scheduler needs to know of a ticket (every store keeps it beside the list view). */
export function automationFacts(t: StoredTicket): AutomationFacts {
  let lastCustomerAt = t.created_at;
  let firstResponseAt: string | null = null;
  for (const r of t.replies) {
    if (r.internal) continue; // a note is no response to the customer
    if (r.from_customer) lastCustomerAt = r.created_at;
    else firstResponseAt ??= r.created_at;
  }
  return { firstResponseAt, lastCustomerAt, escalated: t.escalated ?? [] };
}

function entryOf(t: StoredTicket): Entry {
  const item = leanItem(listItem(t));
  const facts = automationFacts(t);
  return {
    item,
    text: bodyText(t),
    waitingUs: customerSpokeLast(t),
    firstResponseAt: facts.firstResponseAt,
    lastCustomerAt: same(facts.lastCustomerAt, item.created_at),
    escalated: facts.escalated.length ? facts.escalated : NONE,
  };
}

/**
 * Values many tickets hold alike (a status, a category, an agent, a shop's page), kept once: JSON.parse
 * makes a string of each ticket's own. At most INTERNED of them, so unlike values cannot grow it
 * without bound.
 */
const interned = new Map<string, string>();
const INTERNED = 10_000;
function intern<T extends string | null>(s: T): T {
  if (s === null) return s;
  const known = interned.get(s);
  if (known !== undefined) return known as T;
  if (interned.size < INTERNED) interned.set(s, s);
  return s;
}

/** The one empty list and the one empty object every list item without tags or fields shares (frozen: read only). */
const NONE: string[] = Object.freeze([]) as unknown as string[];
const NO_FIELDS: TicketListItem['fields'] = Object.freeze({});

/** `s`, or `other` when both hold the same text (a ticket's times are often equal: one string for both). */
const same = <T extends string | null>(s: T, other: string | null): T => (s !== null && s === other ? (other as T) : s);

/**
 * A list item as the index keeps it, in place (the shape stays): equal values share one string, empty
 * tags and fields one frozen object. At 100k tickets this is some 25 MB less than the parsed values.
 */
function leanItem(item: TicketListItem): TicketListItem {
  item.status = intern(item.status);
  item.priority = intern(item.priority);
  item.category = intern(item.category);
  item.agent_id = intern(item.agent_id);
  item.page_url = intern(item.page_url);
  if (!item.tags.length) item.tags = NONE;
  else item.tags = item.tags.map(intern);
  if (!Object.keys(item.fields).length) item.fields = NO_FIELDS;
  item.updated_at = same(item.updated_at, item.created_at);
  item.closed_at = same(same(item.closed_at, item.updated_at), item.created_at);
  item.last_activity_at = same(item.last_activity_at, item.updated_at);
  return item;
}

/**
 * The list view, as one object literal: every item gets the same hidden class, so the filters in
 * list() stay fast property reads. (Built with object rest, the items ended up in V8's slow
 * dictionary mode: 6.8 ms instead of 0.1 ms to filter 10k tickets by status.)
 */
export function listItem(t: StoredTicket): TicketListItem {
  const last = t.replies[t.replies.length - 1];
  return {
    id: t.id,
    number: t.number,
    subject: t.subject,
    name: t.name,
    email: t.email,
    status: t.status,
    priority: t.priority,
    category: t.category,
    fields: t.fields,
    page_url: t.page_url,
    agent_id: t.agent_id,
    tags: t.tags,
    close_request: t.close_request,
    rating: t.rating,
    due_at: t.due_at,
    closed_at: t.closed_at,
    created_at: t.created_at,
    updated_at: t.updated_at,
    snoozed_until: t.snoozed_until ?? null,
    reply_count: t.replies.length,
    last_reply_at: last ? last.created_at : null,
    last_activity_at: last && last.created_at > t.updated_at ? last.created_at : t.updated_at,
    waiting_on: t.closed_at !== null ? null : customerSpokeLast(t) ? 'us' : 'customer',
    last_message: last
      ? {
          from_customer: last.from_customer,
          internal: last.internal === true,
          preview: preview(last.message),
          at: last.created_at,
        }
      : { from_customer: true, internal: false, preview: preview(t.message), at: t.created_at },
    // Undefined (left out of the JSON) when no note mentions anyone: the key stays, so the shape does too.
    mentions: mentionsOf(t),
  };
}

/** The agents the ticket's notes mention, each once, or undefined when none does. */
function mentionsOf(t: StoredTicket): string[] | undefined {
  let found: Set<string> | undefined;
  for (const r of t.replies) if (r.mentions) for (const id of r.mentions) (found ??= new Set()).add(id);
  return found && [...found];
}

const before = (a: TicketListItem, b: TicketListItem) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);

/** (a, b) < 0 when a comes first: newest first, the last word on ties being the id (as in SQL). */
const byCreated = (a: Entry, b: Entry) =>
  a.item.created_at > b.item.created_at
    ? -1
    : a.item.created_at < b.item.created_at
      ? 1
      : a.item.id > b.item.id
        ? -1
        : a.item.id < b.item.id
          ? 1
          : 0;

/** The orders of /list `sort` (PgTicketStore's ORDER BY clauses say the same). */
const ORDERS: Record<ListSort, (a: Entry, b: Entry) => number> = {
  created: byCreated,
  // The latest activity first.
  activity: (a, b) =>
    a.item.last_activity_at > b.item.last_activity_at
      ? -1
      : a.item.last_activity_at < b.item.last_activity_at
        ? 1
        : a.item.id > b.item.id
          ? -1
          : a.item.id < b.item.id
            ? 1
            : 0,
  // The nearest deadline first, tickets without one last; then newest first.
  due: (a, b) => {
    const x = a.item.due_at;
    const y = b.item.due_at;
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return byCreated(a, b);
  },
  // The most urgent first; then newest first.
  priority: (a, b) => rankOf(b) - rankOf(a) || byCreated(a, b),
};

const rankOf = (e: Entry) => PRIORITY_RANK[e.item.priority] ?? 0;

/** Entries with a deadline by (due_at, id): the due views count a range of it. */
const beforeDue = (a: Entry, b: Entry) =>
  a.item.due_at! < b.item.due_at! || (a.item.due_at === b.item.due_at && a.item.id < b.item.id);

/** Snoozed entries by (snoozed_until, id): the ones still asleep are the end of the list. */
const beforeWake = (a: Entry, b: Entry) =>
  a.item.snoozed_until! < b.item.snoozed_until! ||
  (a.item.snoozed_until === b.item.snoozed_until && a.item.id < b.item.id);

/** Whether a ticket's snooze has not ended at `now`. */
/** When a ticket's snooze ends (null: not snoozed). */
const wakesAt = (e: Entry) => e.item.snoozed_until ?? null;

const asleep = (e: Entry, now: string) => {
  const at = wakesAt(e);
  return at !== null && at > now;
};

/** Entries by (last_activity_at, id), oldest activity first. */
const beforeActivity = (a: Entry, b: Entry) =>
  a.item.last_activity_at < b.item.last_activity_at ||
  (a.item.last_activity_at === b.item.last_activity_at && a.item.id < b.item.id);

/** The slot of `e` in `list`, sorted by `before`. */
function slot(list: Entry[], e: Entry, before: (a: Entry, b: Entry) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!, e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sortedInsert(list: Entry[], e: Entry, before: (a: Entry, b: Entry) => boolean) {
  const last = list[list.length - 1];
  if (!last || before(last, e)) list.push(e);
  else list.splice(slot(list, e, before), 0, e);
}

function sortedRemove(list: Entry[], e: Entry, before: (a: Entry, b: Entry) => boolean) {
  const at = slot(list, e, before);
  if (list[at] === e) list.splice(at, 1);
}

/** The first slot of `list` (sorted by due_at) whose due_at is at or after `at`. */
function dueFrom(list: Entry[], at: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.item.due_at! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const add = (map: Map<string, number>, key: string, n: number) => {
  const v = (map.get(key) ?? 0) + n;
  if (v) map.set(key, v);
  else map.delete(key);
};

/** Adds `n` to an agent's count of a status, forgetting agents whose counts are all zero. */
const addPer = (map: Map<string, Map<string, number>>, agent: string, status: string, n: number) => {
  let counts = map.get(agent);
  if (!counts) map.set(agent, (counts = new Map()));
  add(counts, status, n);
  if (!counts.size) map.delete(agent);
};

/** The first slot of `list` (sorted by snoozed_until) whose snooze ends after `now`. */
function wakeFrom(list: Entry[], now: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.item.snoozed_until! <= now) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Every ticket's list view, in memory, oldest first, so /list never touches the disk. Built at start
 * and updated after every durable write; at 100k tickets a filtered page is one pass over an array,
 * and /counts is a sum over statuses (counters kept per status) plus a binary search in the deadlines.
 */
export class TicketIndex {
  private byId = new Map<string, Entry>();
  private byNumber = new Map<number, string>();
  private highest = 0;
  private ordered: Entry[] = [];
  /**
   * The same entries per status, in the same order. Filtering by status is by far the most common
   * list; with these it costs O(1) for the total and O(limit) for the page instead of a pass over
   * every ticket (at 100k tickets a pass is mostly cache misses: ~8 ms).
   */
  private byStatus = new Map<string, Entry[]>();
  /** Per status: tickets whose customer spoke last, and tickets with nobody assigned. */
  private waiting = new Map<string, number>();
  private unassigned = new Map<string, number>();
  /** Per agent, per status: tickets assigned. */
  private assigned = new Map<string, Map<string, number>>();
  /** Per agent, per status: tickets with a note mentioning them. */
  private mentioned = new Map<string, Map<string, number>>();
  /** Per status: tickets with a deadline, by due_at (the due views are a binary search in each). */
  private dueByStatus = new Map<string, Entry[]>();
  /** Every ticket by last activity (sort=activity walks it from the end). */
  private byActivity: Entry[] = [];
  /** Per status: tickets with a snooze, by its end (the asleep ones are a binary search away). */
  private snoozedByStatus = new Map<string, Entry[]>();

  get size() {
    return this.ordered.length;
  }

  has(id: string) {
    return this.byId.has(id);
  }

  /** The id of the ticket with that number. */
  idOf(number: number): string | undefined {
    return this.byNumber.get(number);
  }

  /** The list view of one ticket. */
  itemOf(id: string): TicketListItem | undefined {
    return this.byId.get(id)?.item;
  }

  /**
   * What the search index reads a ticket's words from: the list item, and the message and replies
   * from the text kept for `q`, so the build at start parses no ticket a second time.
   */
  searchSource(id: string): SearchSource | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    const { subject, name, email, tags } = e.item;
    return { id, subject, name, email, tags, texts: e.text };
  }

  /** Every ticket's id, oldest first. */
  ids(): string[] {
    return this.ordered.map((e) => e.item.id);
  }

  numberOf(id: string): number | undefined {
    return this.byId.get(id)?.item.number;
  }

  /** The highest number a ticket here has (0: none). */
  lastNumber() {
    return this.highest;
  }

  private numbered(t: StoredTicket) {
    this.byNumber.set(t.number, t.id);
    if (t.number > this.highest) this.highest = t.number;
  }

  /** Adds tickets in any order at start-up; call sorted() once all are in. */
  add(t: StoredTicket) {
    const entry = entryOf(t);
    this.byId.set(t.id, entry);
    this.numbered(t);
    this.ordered.push(entry);
  }

  /** Sorts what add() collected, once, and builds the per-status lists and the counters. */
  sorted() {
    // Comparators that decide in one pass (not two calls of a `before`): 100k tickets come in the
    // directory's order, so this sort makes some 1.7 million comparisons.
    this.ordered.sort((a, b) => byCreated(b, a));
    this.byStatus.clear();
    this.waiting.clear();
    this.unassigned.clear();
    this.assigned.clear();
    this.mentioned.clear();
    for (const e of this.ordered) {
      this.statusList(e.item.status).push(e);
      this.account(e, 1);
    }
    this.dueByStatus.clear();
    for (const e of this.ordered) if (e.item.due_at !== null) this.dueList(e.item.status).push(e);
    for (const list of this.dueByStatus.values()) list.sort((a, b) => (beforeDue(a, b) ? -1 : beforeDue(b, a) ? 1 : 0));
    this.byActivity = this.ordered.slice();
    this.byActivity.sort((a, b) => ORDERS.activity(b, a));
    this.snoozedByStatus.clear();
    for (const e of this.ordered) if (wakesAt(e) !== null) this.snoozedList(e.item.status).push(e);
    for (const list of this.snoozedByStatus.values())
      list.sort((a, b) => (beforeWake(a, b) ? -1 : beforeWake(b, a) ? 1 : 0));
  }

  put(t: StoredTicket) {
    const entry = entryOf(t);
    const existing = this.byId.get(t.id);
    this.byId.set(t.id, entry);
    this.numbered(t);
    if (existing) {
      this.unlink(existing);
    }
    this.link(entry);
    if (existing) {
      this.ordered[position(this.ordered, existing.item)] = entry;
      if (existing.item.status === entry.item.status) {
        const list = this.statusList(entry.item.status);
        list[position(list, existing.item)] = entry;
        return;
      }
      const old = this.statusList(existing.item.status);
      old.splice(position(old, existing.item), 1);
      insert(this.statusList(entry.item.status), entry);
      return;
    }
    insert(this.ordered, entry);
    insert(this.statusList(entry.item.status), entry);
  }

  remove(id: string) {
    const existing = this.byId.get(id);
    if (!existing) return;
    this.byId.delete(id);
    this.byNumber.delete(existing.item.number);
    this.unlink(existing);
    this.ordered.splice(position(this.ordered, existing.item), 1);
    const list = this.statusList(existing.item.status);
    list.splice(position(list, existing.item), 1);
  }

  /** Ordered by `context.sort` (newest first by default). */
  list(
    filter: ListFilter,
    limit: number,
    offset: number,
    context: ListContext = NEWEST,
  ): { items: TicketListItem[]; total: number } {
    const view = filter.view === undefined || filter.view === 'all' ? undefined : filter.view;
    const email = filter.email?.toLowerCase();
    const q = filter.q?.toLowerCase();
    const onlyStatus =
      view === undefined &&
      filter.category === undefined &&
      filter.priority === undefined &&
      filter.agent_id === undefined &&
      email === undefined &&
      filter.tag === undefined &&
      q === undefined;
    const items: TicketListItem[] = [];
    // The candidates: a due view reads its range of deadlines, a status its own list, else everything.
    let base: Entry[];
    let createdOrder = true;
    const closed = new Set(context.closed);
    if (view === 'overdue' || view === 'due_soon') {
      base = [];
      for (const [status, list] of this.dueByStatus) {
        if (closed.has(status) || (filter.status !== undefined && status !== filter.status)) continue;
        const from = dueFrom(list, context.now);
        for (const e of view === 'overdue' ? list.slice(0, from) : list.slice(from, dueFrom(list, context.soon)))
          base.push(e);
      }
      createdOrder = false;
    } else {
      base = filter.status === undefined ? this.ordered : (this.byStatus.get(filter.status) ?? []);
    }
    if (onlyStatus && context.sort === 'created') {
      for (let i = base.length - 1 - offset; i >= 0 && items.length < limit; i--) items.push(base[i]!.item);
      return { items, total: base.length };
    }
    const me = context.me;
    const inView = (e: Entry): boolean => {
      if (view === undefined) return true;
      const open = !closed.has(e.item.status);
      switch (view) {
        case 'needs_reply':
          return open && e.waitingUs && !asleep(e, context.now);
        case 'snoozed':
          return open && asleep(e, context.now);
        case 'mine':
          return open && me !== undefined && e.item.agent_id === me;
        case 'mentions':
          return open && me !== undefined && e.item.mentions !== undefined && e.item.mentions.includes(me);
        case 'unassigned':
          return open && e.item.agent_id === null;
        case 'open':
          return open;
        case 'closed':
          return !open;
        default:
          return open; // the due views: their range is the base
      }
    };
    // A view alone (with or without a status), by creation or activity: the total comes from the
    // counters, and the page from walking that order until it is full.
    const viewOnly =
      view !== undefined &&
      view !== 'due_soon' &&
      view !== 'overdue' &&
      filter.category === undefined &&
      filter.priority === undefined &&
      filter.agent_id === undefined &&
      email === undefined &&
      filter.tag === undefined &&
      q === undefined;
    if ((viewOnly || onlyStatus) && (context.sort === 'created' || context.sort === 'activity')) {
      const walk = context.sort === 'activity' ? this.byActivity : base;
      let skipped = 0;
      for (let i = walk.length - 1; i >= 0 && items.length < limit; i--) {
        const e = walk[i]!;
        if (filter.status !== undefined && e.item.status !== filter.status) continue;
        if (!inView(e)) continue;
        if (skipped++ < offset) continue;
        items.push(e.item);
      }
      const total = view === undefined ? base.length : this.viewTotal(view, filter.status, context, closed);
      return { items, total };
    }
    const keep = context.sort === 'created' && createdOrder ? undefined : offset + limit;
    const order = ORDERS[context.sort];
    const top: Entry[] = [];
    let total = 0;
    for (let i = base.length - 1; i >= 0; i--) {
      const e = base[i]!;
      const { item } = e;
      if (filter.status !== undefined && item.status !== filter.status) continue;
      if (filter.category !== undefined && item.category !== filter.category) continue;
      if (filter.priority !== undefined && item.priority !== filter.priority) continue;
      if (filter.agent_id !== undefined && item.agent_id !== filter.agent_id) continue;
      if (email !== undefined && item.email.toLowerCase() !== email) continue;
      if (filter.tag !== undefined && !item.tags.includes(filter.tag)) continue;
      if (q !== undefined && !matches(e, q)) continue;
      if (!inView(e)) continue;
      if (keep === undefined) {
        if (total >= offset && items.length < limit) items.push(item);
      } else if (keep > 0 && (top.length < keep || order(e, top[top.length - 1]!) < 0)) {
        // The best `keep` so far, in order: a page costs O(n log(offset + limit)), not a sort of all.
        let lo = 0;
        let hi = top.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (order(top[mid]!, e) <= 0) lo = mid + 1;
          else hi = mid;
        }
        top.splice(lo, 0, e);
        if (top.length > keep) top.pop();
      }
      total++;
    }
    if (keep !== undefined) for (const e of top.slice(offset)) items.push(e.item);
    return { items, total };
  }

  /** Tickets per view and per status: sums of the per-status counters, no pass over the tickets. */
  counts(context: ListContext): Counts {
    const closed = new Set(context.closed);
    const statuses: Record<string, number> = {};
    const views = noViews();
    const mine = context.me === undefined ? undefined : this.assigned.get(context.me);
    const mentions = context.me === undefined ? undefined : this.mentioned.get(context.me);
    for (const [status, list] of this.byStatus) {
      if (!list.length) continue;
      statuses[status] = list.length;
      views.all += list.length;
      if (closed.has(status)) {
        views.closed += list.length;
        continue;
      }
      views.open += list.length;
      const sleeping = this.asleep(status, context.now);
      views.needs_reply += (this.waiting.get(status) ?? 0) - sleeping.waiting;
      views.snoozed += sleeping.all;
      views.unassigned += this.unassigned.get(status) ?? 0;
      views.mine += mine?.get(status) ?? 0;
      views.mentions += mentions?.get(status) ?? 0;
      const due = this.dueByStatus.get(status);
      if (due) {
        const now = dueFrom(due, context.now);
        views.overdue += now;
        views.due_soon += dueFrom(due, context.soon) - now;
      }
    }
    return { views, statuses };
  }

  /** How many tickets a view holds (of one status, when given), from the counters. */
  private viewTotal(view: InboxView, status: string | undefined, context: ListContext, closed: Set<string>) {
    if (status === undefined) return this.counts(context).views[view];
    const size = this.byStatus.get(status)?.length ?? 0;
    const open = !closed.has(status);
    switch (view) {
      case 'needs_reply':
        return open ? (this.waiting.get(status) ?? 0) - this.asleep(status, context.now).waiting : 0;
      case 'snoozed':
        return open ? this.asleep(status, context.now).all : 0;
      case 'unassigned':
        return open ? (this.unassigned.get(status) ?? 0) : 0;
      case 'mine':
        return open && context.me !== undefined ? (this.assigned.get(context.me)?.get(status) ?? 0) : 0;
      case 'mentions':
        return open && context.me !== undefined ? (this.mentioned.get(context.me)?.get(status) ?? 0) : 0;
      case 'open':
        return open ? size : 0;
      case 'closed':
        return open ? 0 : size;
      default:
        return size;
    }
  }

  /** Tickets of a status whose snooze has not ended at `now`: all of them, and those waiting on us. */
  private asleep(status: string, now: string) {
    const list = this.snoozedByStatus.get(status);
    if (!list) return { all: 0, waiting: 0 };
    let waiting = 0;
    const from = wakeFrom(list, now);
    for (let i = from; i < list.length; i++) if (list[i]!.waitingUs) waiting++;
    return { all: list.length - from, waiting };
  }

  /** Every ticket with its automation facts, oldest first (the scheduler's scan). */
  *scan(): IterableIterator<{ item: TicketListItem } & AutomationFacts> {
    for (const e of this.ordered) yield e;
  }

  private account(e: Entry, n: 1 | -1) {
    const { status, agent_id } = e.item;
    if (e.waitingUs) add(this.waiting, status, n);
    if (agent_id === null) add(this.unassigned, status, n);
    else addPer(this.assigned, agent_id, status, n);
    if (e.item.mentions) for (const id of e.item.mentions) addPer(this.mentioned, id, status, n);
  }

  /** Adds an entry to the counters and the orders beside `ordered` and the status lists. */
  private link(e: Entry) {
    this.account(e, 1);
    if (e.item.due_at !== null) sortedInsert(this.dueList(e.item.status), e, beforeDue);
    if (wakesAt(e) !== null) sortedInsert(this.snoozedList(e.item.status), e, beforeWake);
    sortedInsert(this.byActivity, e, beforeActivity);
  }

  private unlink(e: Entry) {
    this.account(e, -1);
    if (e.item.due_at !== null) sortedRemove(this.dueList(e.item.status), e, beforeDue);
    if (wakesAt(e) !== null) sortedRemove(this.snoozedList(e.item.status), e, beforeWake);
    sortedRemove(this.byActivity, e, beforeActivity);
  }

  private snoozedList(status: string): Entry[] {
    let list = this.snoozedByStatus.get(status);
    if (!list) this.snoozedByStatus.set(status, (list = []));
    return list;
  }

  private dueList(status: string): Entry[] {
    let list = this.dueByStatus.get(status);
    if (!list) this.dueByStatus.set(status, (list = []));
    return list;
  }

  private statusList(status: string): Entry[] {
    let list = this.byStatus.get(status);
    if (!list) {
      list = [];
      this.byStatus.set(status, list);
    }
    return list;
  }
}

/** Binary search for the slot of `item` by (created_at, id). */
function position(list: Entry[], item: TicketListItem): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!.item, item)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** New tickets are the newest: usually a push; a clock that went back costs a splice. */
function insert(list: Entry[], entry: Entry) {
  const last = list[list.length - 1];
  if (!last || before(last.item, entry.item)) list.push(entry);
  else list.splice(position(list, entry.item), 0, entry);
}
