import type { Counts, InboxView, KeyMode, ListSort, Ticket, TicketListItem } from '../model/index.js';
import type { ReportQuestion, ReportSums } from './report-sums.js';

export type { KeyMode };

/** Idempotency-Keys are kept (with their ticket) for a day: the promise of docs/api.md, "Retries". */
export const IDEMPOTENCY_MS = 24 * 60 * 60 * 1000;

/** What is written with the ticket a keyed request created or changed, so a restart forgets nothing. */
export interface IdempotencyRecord {
  /** The scope (key holder, mode, endpoint) and the client's key. */
  key: string;
  /** SHA-256 of the request body. */
  hash: string;
  at: string;
}

/**
 * A store refused an Idempotency-Key because a request elsewhere (another instance) stored it first,
 * or is storing it now: the caller recalls what that request made instead of filing it twice.
 */
export class IdempotencyKeyTaken extends Error {
  constructor(readonly key: string) {
    super('This Idempotency-Key was stored by another request meanwhile.');
  }
}

/** Internal fields of the stored record that no view shows. */
export type StoredTicket = Ticket & {
  /** Bumped when support revokes the ticket's links (links/magic-link.ts): older links stop working. */
  link_version?: number;
  /** The customer's language (i18n/locales.ts), from /create's Accept-Language: their mails are in it. */
  locale?: string;
  /** Escalation entries that have fired for this ticket. */
  escalated?: string[];
  /**
   * Support replies the customer has seen while verified (X-Ticketing-Identity), on any device: what
   * /updates counts as read on a device that has not shown the ticket yet (tickets/seen.ts).
   */
  customer_seen?: number;
  /** Idempotency-Keys of the requests that created or changed the ticket in the last 24 hours. */
  idempotency?: IdempotencyRecord[];
};

export interface ListFilter {
  status?: string;
  category?: string;
  priority?: string;
  agent_id?: string;
  email?: string;
  tag?: string;
  /** Case-insensitive substring of subject, name, email, message, replies or notes. */
  q?: string;
  /** One of the inbox's views (it needs ListContext). */
  view?: InboxView;
}

/**
 * What the inbox's views and sorts are measured against, given by the caller: the statuses that close
 * a ticket (configuration, so the store needs not read it), the agent asking (`mine`) and the clock.
 */
export interface ListContext {
  sort: ListSort;
  closed: readonly string[];
  /** The agent of `mine`; without one, `mine` holds nothing. */
  me?: string | undefined;
  /** Now, and where "due soon" ends (ISO times). */
  now: string;
  soon: string;
}

/** The context of a plain list: newest first, no view. */
export const NEWEST: ListContext = { sort: 'created', closed: [], now: '', soon: '' };

/** What the scheduler needs to know of every ticket, without reading it whole. */
export interface AutomationFacts {
  /** When support first replied, or null. */
  firstResponseAt: string | null;
  /** The customer's last word: their last reply, or the ticket's creation. */
  lastCustomerAt: string;
  /** Escalation entries that have fired for this ticket. */
  escalated: string[];
}

export interface FileBlob {
  id: string;
  data: Uint8Array;
}

/** What a change to a ticket produces: the new record and any attachment bytes to store with it. */
export interface TicketChange {
  ticket: StoredTicket;
  files?: FileBlob[];
  /** The Idempotency-Key of the request making the change, stored in the same write. */
  idempotency?: IdempotencyRecord | undefined;
}

/** A new ticket, without its number: the store gives it one (TicketStore.create). */
export type NewTicketChange = Omit<TicketChange, 'ticket'> & { ticket: Omit<StoredTicket, 'number'> };

/** Numbers start here, so a ticket's number never looks like a count (#1001 is the first). */
export const FIRST_NUMBER = 1001;

/** The ticket with its number, which its JSON shows right after the id (keys keep their insertion order). */
export function withNumber<T extends { id: string }>(t: T, number: number): T & { number: number } {
  const out = Object.assign({ id: t.id, number }, t);
  out.number = number;
  return out;
}

/** A page of the list view, and how many tickets match the filter in all. */
export interface ListPage {
  items: TicketListItem[];
  total: number;
  /**
   * The items as JSON text, when the store has them so (PostgreSQL's view pages: json_agg): /list sends
   * it as it is, without parsing 50 list views to write them out again (`items` parses it when read).
   */
  json?: string;
}

/** A ticket's list view with what the scheduler needs to know of it (escalation, autoclose). */
export type TicketFacts = { item: TicketListItem } & AutomationFacts;

/** Tickets a scan must give: every one not in a `closed` status, and every one active at or after `since` (ISO). */
export interface ActiveSince {
  since: string;
  closed: readonly string[];
}

/**
 * Tickets of one mode (live or test). The JSON-file implementation keeps one file per ticket behind a
 * write-ahead journal, with an index in memory; a database implementation can take its place without
 * the features noticing: everything here is asynchronous and names no implementation type.
 */
export interface TicketStore {
  readonly mode: KeyMode;
  get(id: string): Promise<StoredTicket | undefined>;
  /** The ticket of that number (#1042), if it exists. */
  getByNumber(number: number): Promise<StoredTicket | undefined>;
  /**
   * Stores the files, then the ticket; acknowledged only when both are durable. The ticket gets the
   * mode's next number in the same write (after the highest ever given): numbers are unique, in
   * creation order and never reused, also across a crash. The JSON store's have no gaps (a failed
   * write gives its number back); PostgreSQL's come from a sequence (a failed create leaves one unused).
   */
  create(change: NewTicketChange): Promise<StoredTicket>;
  /** Serialised per ticket: `change` sees the latest record. Undefined when the ticket does not exist. */
  update(
    id: string,
    change: (current: StoredTicket) => TicketChange | Promise<TicketChange>,
  ): Promise<StoredTicket | undefined>;
  /**
   * Changes several tickets as one (/merge): each is locked, in the order of their ids, so two callers
   * naming the same tickets in other orders wait for each other instead of deadlocking; `change` then
   * sees them all as they are under those locks (undefined for one that does not exist), so what it
   * checks holds when it writes. It answers a change per ticket, in the order named, written in that
   * order; if it throws, nothing is written.
   */
  updateMany(
    ids: readonly string[],
    change: (current: (StoredTicket | undefined)[]) => TicketChange[] | Promise<TicketChange[]>,
  ): Promise<StoredTicket[]>;
  /** Removes the ticket and its files; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Ordered by `context.sort` (default: newest first). */
  list(filter: ListFilter, limit: number, offset: number, context?: ListContext): Promise<ListPage>;
  /**
   * Tickets of any status whose number, id, customer email or name, subject, message, reply or note,
   * or tag matches `query` (/v1/search): best first, then newest first. `capped`: only the newest
   * matches were ranked and counted, `total` is a lower bound (PostgreSQL, a common query).
   */
  search(query: string, limit: number, offset: number): Promise<ListPage & { capped?: boolean }>;
  /** How many tickets match `filter` (`{}`: all of them). */
  count(filter: ListFilter, context?: ListContext): Promise<number>;
  /** Tickets per inbox view and per status, each as list() would total it. */
  counts(context: ListContext): Promise<Counts>;
  /**
   * Every ticket's list view with the facts the scheduler needs, oldest first, as of the call. With
   * `active` (a report's period), a store may leave out tickets that are closed and had no activity
   * since then (PostgreSQL does, so a month's report reads a month, not years); others come in any order.
   */
  scan(active?: ActiveSince): AsyncIterable<TicketFacts>;
  /**
   * A report's sums made where the tickets are (PostgreSQL: a month of a million tickets is summed in
   * the database instead of read row by row). A store without it is scanned and summed by the caller.
   */
  reportSums?(question: ReportQuestion): Promise<ReportSums>;
  /** The ticket an Idempotency-Key (scope and key) was stored with, while that ticket exists. */
  recallIdempotency(key: string): Promise<{ ticketId: string; hash: string; at: string } | undefined>;
  /**
   * Makes everything acknowledged so far readable as the store's own files (a store that commits
   * through a journal writes it out); a backup calls it before its snapshot.
   */
  flush(): Promise<void>;
  /** Resolves once every write in flight has finished. */
  idle(): Promise<void>;
  /** Writes out what it holds and lets go of its files (a clean stop). */
  close(): Promise<void>;
}

/** Attachment bytes of one mode: written with the ticket change that names them (TicketChange.files). */
export interface FileStore {
  /** The bytes of one attachment of one ticket, or undefined. */
  read(ticketId: string, fileId: string): Promise<Uint8Array | undefined>;
}
