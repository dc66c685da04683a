import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import { isId, noViews } from '../model/index.js';
import { automationFacts, customerSpokeLast, listItem, PRIORITY_RANK, searchText } from '../store/ticket-index.js';
import { searchParts, searchQuery } from '../store/search-index.js';
import {
  FIRST_NUMBER,
  IDEMPOTENCY_MS,
  IdempotencyKeyTaken,
  NEWEST,
  type FileStore,
  type IdempotencyRecord,
  type KeyMode,
  type ListContext,
  type ListFilter,
  type ListPage,
  type NewTicketChange,
  type StoredTicket,
  type TicketChange,
  type TicketFacts,
  type TicketStore,
  type ActiveSince,
  withNumber,
} from '../store/ticket-store.js';
import type { Counts, ListSort, TicketListItem } from '../model/index.js';
import type { DurationRanks, ReportQuestion, ReportSums } from '../store/report-sums.js';
import { afterCommit, currentUnit } from '../store/unit-of-work.js';
import { businessClock } from '../hours/business-hours.js';
import type { BusinessHours } from '../model/index.js';
import { changeNotice, type ChangeFeed, type Heard } from './change-feed.js';
import { numberSequence } from './migrations.js';
import { CoalescedReads } from './coalesced-reads.js';
import { SearchWordStats } from './search-stats.js';
import type { Database, Sql } from './database.js';

const SCAN_PAGE = 1000;
/** A common query ranks its newest this many matches: beyond them `total` is "at least". */
const RANKED = 500;
/**
 * A word is rare enough to be looked up in the GIN index when about this share of the tickets hold it
 * (1 in 50), and at most GIN_ROWS of them: the GIN plan reads each such ticket's row (4 µs each warm at
 * a million tickets, 40 µs from disk), whatever else the query asks. A word held by RANKED tickets or
 * fewer always is: a few milliseconds at most, and every match found. (Counts taken when the database
 * was young call its words common by their share: a word in 1 of the 1 ticket counted at the start.)
 */
const GIN_SHARE = 0.02;
const GIN_ROWS = 20_000;
/**
 * Through the GIN index, at most this many newest tickets holding the rarer words are looked at (the
 * other words checked on them): older ones make the result "at least" (`capped`).
 */
const CANDIDATES = 1000;
/**
 * A query of common words only (each in more than GIN_SHARE of the tickets) walks at most this many
 * newest tickets: with each word in 1 of 50 or more, that finds a hundred matches or more.
 */
const WALK = 5000;
/** Word counts older than this are counted again (in the background; searches meanwhile use the old). */
const STATS_MS = 5 * 60_000;

/**
 * A value with its object keys in jsonb's order (shorter keys first, then by their bytes), as a read of
 * the row gives it back: a ticket held from a write serializes byte for byte as the same ticket read
 * from the database, so its ETag does not change when the copy in memory is replaced by a read.
 */
function asJsonb<T>(value: T): T {
  if (Array.isArray(value)) return value.map(asJsonb) as T;
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value)
    .map((k) => ({ k, bytes: Buffer.from(k) }))
    .sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes))
    .map(({ k }) => k);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = asJsonb(v);
  }
  return out as T;
}
const REFRESH_PAGE = 500;
/** Tickets held in memory per mode (the JSON store's cache holds as many). */
const CACHE_SIZE = 5000;
/** ticket_view_counts' rows appended since the last fold past which a read folds them (compactViewCounts). */
const COMPACT_AT = 256;
/** The class of the advisory locks that let one instance at a time fold a mode's view counts. */
const VIEW_COUNTS_LOCK = 7_341_022;

/** The views of open tickets: all but all and closed (the store's own where() tells them apart so). */
const opensView = (filter: ListFilter) =>
  filter.view !== undefined && filter.view !== 'all' && filter.view !== 'closed';

/** The statuses of `statuses` that are not among `closed`. */
function notClosedOf(statuses: Record<string, number>, closed: readonly string[]): string[] {
  const closedSet = new Set(closed);
  return Object.keys(statuses).filter((s) => !closedSet.has(s));
}

/** A mode's statuses as a report reads them: those not closed, and the closed ones. */
interface ReportStatuses {
  open: string[];
  closed: string[];
}

/** A page whose items came as JSON text (ListPage.json): parsed only if something reads them. */
function pageOfJson(json: string, total: number): ListPage {
  let items: TicketListItem[] | undefined;
  return {
    json,
    total,
    get items() {
      return (items ??= JSON.parse(json) as TicketListItem[]);
    },
  };
}

/** The row of PgTicketStore.viewCountsOf: the inbox views' kept numbers, and what they are made of. */
interface ViewCountsRow {
  waiting: number;
  unassigned: number;
  mine: number;
  mentions: number;
  overdue_before: number;
  /** ticket_view_counts' rows summed (folded when many: compactViewCounts). */
  rows: number;
  snoozed: number;
  snoozed_waiting: number;
  overdue_today: number;
  soon: number;
}

/** A ticket as read or written here, with its row's version then (xmin: every change writes a new one). */
interface Cached {
  ticket: StoredTicket;
  version: string;
  /**
   * What the change feed had heard when the row was as held (read or committed), if it heard nothing
   * more until the copy was held: the copy is the stored row while the feed's epoch is the same and no
   * change to this ticket is heard (which drops the copy).
   */
  heard?: Heard;
}

/**
 * An Idempotency-Key's scope and key, as stored: their SHA-256 (the scope is joined to the key with a
 * NUL, which PostgreSQL's text cannot hold, and a fixed length keeps the index small).
 */
const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

/** An ISO time as epoch milliseconds (the report's columns, schema 11); null when there is none. */
function epochMs(at: string | null | undefined): number | null {
  const ms = at ? Date.parse(at) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** The columns of a ticket's row: the record whole, its list view, and what filters, the scheduler and reports read. */
function columns(mode: KeyMode, t: StoredTicket) {
  const facts = automationFacts(t);
  const item = listItem(t);
  return {
    mode,
    id: t.id,
    number: t.number,
    data: t,
    item,
    status: t.status,
    category: t.category,
    priority: t.priority,
    agent_id: t.agent_id,
    email_lower: t.email.toLowerCase(),
    tags: t.tags,
    search: searchText(t),
    parts: searchParts(t),
    created_at: t.created_at,
    last_activity_at: item.last_activity_at,
    waiting_us: customerSpokeLast(t),
    due_at: t.due_at,
    snoozed_until: item.snoozed_until ?? null,
    mentions: item.mentions ?? null,
    priority_rank: PRIORITY_RANK[t.priority] ?? 0,
    first_response_at: facts.firstResponseAt,
    last_customer_at: facts.lastCustomerAt,
    escalated: facts.escalated,
    created_ms: epochMs(t.created_at),
    responded_ms: epochMs(facts.firstResponseAt),
    closed_ms: epochMs(t.closed_at),
    rated_ms: epochMs(t.rating?.rated_at),
    score: t.rating?.score ?? null,
  };
}

/** The record as stored: its Idempotency-Keys live in their own table (with a unique key), not in it. */
function withoutKeys<T extends Pick<StoredTicket, 'idempotency'>>(t: T): T {
  if (!t.idempotency) return t;
  const { idempotency: _keys, ...rest } = t;
  return rest as T;
}

/**
 * The tickets of one mode in PostgreSQL: one row per ticket (the record as jsonb, with the columns the
 * list filters and the scheduler read), attachment bytes in ticket_files, Idempotency-Keys in
 * idempotency_keys under a unique key. A change reads its ticket FOR UPDATE, so changes to one ticket
 * are serialised across every instance, as the JSON store serialises them in one process; inside a
 * request's unit of work (postgres/database.ts) the row stays locked until the answer's transaction
 * commits.
 */
export class PgTicketStore implements TicketStore, FileStore {
  /**
   * Tickets this instance read or wrote, least recently used first. Another instance may have changed
   * one, and its notice may still be on its way when the writer's client already has its 201 and asks
   * here. A copy is served as it is only when the change feed (postgres/change-feed.ts) proves it
   * current: it heard nothing between the moment the row was as held and the copy being kept, heard
   * no change to the ticket since (which drops the copy), and a barrier sent after the request arrived
   * has answered on its connection. Any other read is checked against the row's version, the reads
   * that arrive while a check runs sharing the next one (one statement for many reads, answering only
   * the versions of unchanged tickets and the data of changed ones). The shared objects are never
   * mutated (writers build new records).
   */
  private readonly cache = new Map<string, Cached>();
  private readonly checked = new CoalescedReads((ids: string[]) => this.current(ids));
  /**
   * The tickets per status as last read (perStatusOf): the statuses the open views' rows are chosen
   * by, checked by each list in its own snapshot (list).
   */
  private statusesSeen: Record<string, number> | undefined;
  /** A fold of ticket_view_counts is under way from here. */
  private compacting = false;
  /** The rows the last fold left: the next is due COMPACT_AT rows later (the sums' own rows stay). */
  private folded = 0;
  /** The words' counts /v1/search plans by (see wordStats), the count under way, tickets written here. */
  private stats: SearchWordStats | undefined;
  private counting: Promise<SearchWordStats> | undefined;
  private writes = 0;
  private writesAtStats = 0;

  constructor(
    private readonly db: Database,
    readonly mode: KeyMode,
    private readonly feed?: ChangeFeed,
  ) {}

  /** What the feed has heard now, to hold a copy under once the row it was read or written from is current. */
  private mark(): Heard | undefined {
    return this.feed?.now();
  }

  /** `heard`, when the feed heard nothing since: the copy held now may be served without asking. */
  private trusted(heard: Heard | undefined): Heard | undefined {
    return heard && this.feed?.quietSince(heard) ? heard : undefined;
  }

  private json(value: unknown) {
    return this.db.sql.json(value as postgres.JSONValue);
  }

  async get(id: string): Promise<StoredTicket | undefined> {
    if (!isId('tkt', id)) return undefined;
    if (currentUnit()) {
      // Inside a write's transaction: what it sees (its own changes, not yet committed) is not for the cache.
      const sql = await this.db.q();
      const [row] = await sql<{ data: StoredTicket }[]>`
        SELECT data FROM tickets WHERE mode = ${this.mode} AND id = ${id}`;
      return row?.data;
    }
    const held = this.cache.get(id);
    // Held, and trusted: once every change committed before this request arrived has been heard (the
    // feed's barrier, often the key throttle's read already made for this request), a copy still held
    // is the stored row.
    if (held?.heard && this.feed?.sameEpoch(held.heard) && (await this.feed.sync()) && this.cache.get(id) === held) {
      this.remember(id, held);
      return held.ticket;
    }
    return this.checked.get(id);
  }

  /** The tickets as stored now: those whose version is the one held come from memory, the others are read. */
  private async current(ids: string[]): Promise<Map<string, StoredTicket>> {
    const held = new Map(ids.map((id) => [id, this.cache.get(id)]));
    const heard = this.mark();
    const rows = await this.db.sql<{ id: string; version: string; data: StoredTicket | null }[]>`
      SELECT t.id, t.xmin::text AS version, CASE WHEN t.xmin::text = k.version THEN NULL ELSE t.data END AS data
      FROM unnest(${ids}::text[], ${ids.map((id) => held.get(id)?.version ?? '')}::text[]) AS k (id, version)
      JOIN tickets t ON t.mode = ${this.mode} AND t.id = k.id`;
    const found = new Map<string, StoredTicket>();
    for (const r of rows) {
      const ticket = r.data ?? held.get(r.id)!.ticket;
      this.remember(r.id, { ticket, version: r.version, heard: this.trusted(heard) });
      found.set(r.id, ticket);
    }
    for (const id of ids) if (!found.has(id)) this.cache.delete(id); // deleted
    return found;
  }

  /**
   * Holds a record as the newest used. A check that began before a write here committed may answer
   * after it with the older record: the next read's check finds the version changed and reads again.
   */
  private remember(id: string, entry: Cached) {
    this.cache.delete(id);
    this.cache.set(id, entry);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
  }

  /**
   * Another instance (or this one) changed a ticket, as its NOTIFY tells: the copy in memory goes,
   * unless it is the very change told of (this instance's own write). Reads are checked either way.
   */
  changed(id: string, updatedAt: string | undefined) {
    const held = this.cache.get(id);
    if (held && held.ticket.updated_at !== updatedAt) this.cache.delete(id);
  }

  /** The change feed heard of a write to a ticket's row: a copy of another version goes. */
  heard(id: string, version: string | undefined) {
    if (this.cache.get(id)?.version !== version) this.cache.delete(id);
  }

  async getByNumber(number: number): Promise<StoredTicket | undefined> {
    if (!Number.isSafeInteger(number)) return undefined;
    const sql = await this.db.q();
    const [row] = await sql<{ data: StoredTicket }[]>`
      SELECT data FROM tickets WHERE mode = ${this.mode} AND number = ${number}`;
    return row?.data;
  }

  create(change: NewTicketChange): Promise<StoredTicket> {
    return this.db.unit(async () => {
      const sql = await this.db.q();
      if (change.idempotency) await this.claimKey(sql, change.idempotency, change.ticket.id);
      // The number comes from the mode's sequence (schema 13), without a lock: creates on every
      // instance take theirs at once. Its answer is awaited (the 201 carries the number); the
      // ticket's row then goes out with the next statement.
      const [given] = await sql<
        { last: number }[]
      >`SELECT nextval(${numberSequence(this.mode)}::regclass)::int AS last`;
      const ticket = withNumber(withoutKeys(change.ticket), given!.last);
      // Nothing is read back: the row goes out with the unit's next statement, or with its COMMIT.
      const { answer } = await this.db.later((q) => this.insert(q, ticket));
      this.writes++;
      if (change.files?.length) await this.insertFiles(await this.db.q(), ticket.id, change.files);
      // A create is a ticket's first version: a copy already held was put there by a later write of the
      // same transaction (a rule run on ticket.created), whose row has the same version (xmin), so the
      // created ticket must not replace it.
      // Taken before the commit: a later change's notice is heard after it.
      const heard = this.mark();
      afterCommit(
        () =>
          void answer.then(([row]) => {
            if (!this.cache.has(ticket.id))
              this.remember(ticket.id, { ticket: asJsonb(ticket), version: row!.version, heard: this.trusted(heard) });
          }),
      );
      return ticket;
    });
  }

  update(
    id: string,
    change: (current: StoredTicket) => TicketChange | Promise<TicketChange>,
  ): Promise<StoredTicket | undefined> {
    if (!isId('tkt', id)) return Promise.resolve(undefined);
    return this.db.unit(async () => {
      const sql = await this.db.q();
      const [row] = await sql<{ data: StoredTicket }[]>`
        SELECT data FROM tickets WHERE mode = ${this.mode} AND id = ${id} FOR UPDATE`;
      if (!row) return undefined;
      const next = await change(row.data);
      const ticket = withoutKeys(next.ticket);
      if (next.idempotency) await this.claimKey(sql, next.idempotency, ticket.id);
      const c = columns(this.mode, ticket);
      const [updated] = await sql<{ version: string }[]>`
        UPDATE tickets SET
          data = ${this.json(c.data)}, item = ${this.json(c.item)}, number = ${c.number},
          status = ${c.status}, category = ${c.category},
          priority = ${c.priority}, agent_id = ${c.agent_id}, email_lower = ${c.email_lower}, tags = ${c.tags},
          search = ${c.search}, first_response_at = ${c.first_response_at},
          last_customer_at = ${c.last_customer_at}, escalated = ${c.escalated},
          last_activity_at = ${c.last_activity_at}, waiting_us = ${c.waiting_us}, due_at = ${c.due_at},
          snoozed_until = ${c.snoozed_until}, mentions = ${c.mentions},
          created_ms = ${c.created_ms}, responded_ms = ${c.responded_ms}, closed_ms = ${c.closed_ms},
          rated_ms = ${c.rated_ms}, score = ${c.score},
          priority_rank = ${c.priority_rank}, search_doc = ${this.document(sql, c.parts)}
        WHERE mode = ${this.mode} AND id = ${id}
        RETURNING xmin::text AS version`;
      await this.insertFiles(sql, id, next.files ?? []);
      // Every instance drops a copy of an older version when it commits (goes out with the COMMIT).
      await changeNotice(this.db, this.mode, id, updated!.version);
      const heard = this.mark();
      afterCommit(() =>
        this.remember(id, { ticket: asJsonb(ticket), version: updated!.version, heard: this.trusted(heard) }),
      );
      return ticket;
    });
  }

  updateMany(
    ids: readonly string[],
    change: (current: (StoredTicket | undefined)[]) => TicketChange[] | Promise<TicketChange[]>,
  ): Promise<StoredTicket[]> {
    return this.db.unit(async () => {
      const sql = await this.db.q();
      // One statement locks the rows in the order of their ids (by code point, as /bulk sorts them in
      // JavaScript), and reads them as they are once locked: what the change checks holds until the
      // unit commits, on every instance.
      const named = ids.filter((id) => isId('tkt', id));
      const rows = await sql<{ id: string; data: StoredTicket }[]>`
        SELECT id, data FROM tickets WHERE mode = ${this.mode} AND id = ANY(${named}::text[])
        ORDER BY id COLLATE "C" FOR UPDATE`;
      const found = new Map(rows.map((r) => [r.id, r.data]));
      const current = ids.map((id) => found.get(id));
      const next = await change(current);
      if (next.length !== ids.length || next.some((c, i) => c.ticket.id !== ids[i] || !current[i]))
        throw new Error('updateMany: a change for each ticket named, in that order');
      const written: StoredTicket[] = [];
      // Each through update(), whose own FOR UPDATE finds the row already locked by this transaction.
      for (const c of next) written.push((await this.update(c.ticket.id, () => c))!);
      return written;
    });
  }

  /**
   * Writes many ticket rows as they are, in one statement (the migration command's way in): the rows
   * travel as one JSON array, each becomes a row of the table's own types (jsonb_populate_record),
   * and the search document is made from its parts beside it.
   */
  async insertRows(sql: Sql, tickets: StoredTicket[]) {
    if (!tickets.length) return;
    this.writes += tickets.length;
    const rows = tickets.map((t) => {
      const { parts, ...c } = columns(this.mode, withoutKeys(t));
      return { ...c, parts };
    });
    await sql`
      INSERT INTO tickets (mode, id, number, data, item, status, category, priority, agent_id, email_lower, tags,
        search, created_at, first_response_at, last_customer_at, escalated, last_activity_at, waiting_us, due_at,
        snoozed_until, mentions, created_ms, responded_ms, closed_ms, rated_ms, score, priority_rank, search_doc)
      SELECT r.mode, r.id, r.number, r.data, r.item, r.status, r.category, r.priority, r.agent_id, r.email_lower,
        r.tags, r.search, r.created_at, r.first_response_at, r.last_customer_at, r.escalated, r.last_activity_at,
        r.waiting_us, r.due_at, r.snoozed_until, r.mentions, r.created_ms, r.responded_ms, r.closed_ms, r.rated_ms,
        r.score, r.priority_rank,
        setweight(to_tsvector('simple', e.row->'parts'->>'subject'), 'A')
          || setweight(to_tsvector('simple', e.row->'parts'->>'who'), 'B')
          || setweight(to_tsvector('simple', e.row->'parts'->>'text'), 'D')
      FROM jsonb_array_elements(${this.json(rows)}) WITH ORDINALITY AS e (row, n),
        LATERAL jsonb_populate_record(NULL::tickets, e.row) AS r
      ORDER BY e.n`;
  }

  /**
   * Stores many Idempotency-Keys at once (the migration command's): of one key named twice, the
   * newest is kept, as the JSON store's own recall keeps the last one it read.
   */
  async insertKeys(sql: Sql, keys: { record: IdempotencyRecord; ticketId: string }[]) {
    const newest = new Map<string, { record: IdempotencyRecord; ticketId: string }>();
    for (const k of keys) {
      const digest = keyDigest(k.record.key);
      const held = newest.get(digest);
      if (!held || held.record.at < k.record.at) newest.set(digest, k);
    }
    if (!newest.size) return;
    const list = [...newest];
    await sql`
      INSERT INTO idempotency_keys (mode, key, ticket_id, hash, at)
      SELECT ${this.mode}, k, t, h, a
      FROM unnest(${list.map(([d]) => d)}::text[], ${list.map(([, k]) => k.ticketId)}::text[],
        ${list.map(([, k]) => k.record.hash)}::text[], ${list.map(([, k]) => k.record.at)}::text[]) AS x (k, t, h, a)
      ON CONFLICT (mode, key) DO UPDATE SET ticket_id = EXCLUDED.ticket_id, hash = EXCLUDED.hash, at = EXCLUDED.at
        WHERE idempotency_keys.at < EXCLUDED.at`;
  }

  /** Many tickets' attachment bytes in one statement (the migration command's). */
  async insertManyFiles(sql: Sql, files: { ticketId: string; id: string; data: Uint8Array }[]) {
    if (!files.length) return;
    const base64 = (d: Uint8Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64');
    await sql`
      INSERT INTO ticket_files (mode, ticket_id, id, data)
      SELECT ${this.mode}, t, i, decode(d, 'base64')
      FROM unnest(${files.map((f) => f.ticketId)}::text[], ${files.map((f) => f.id)}::text[],
        ${files.map((f) => base64(f.data))}::text[]) AS x (t, i, d)`;
  }

  /** The INSERT of a ticket's row, answering the row's version. */
  private insert(sql: Sql, ticket: StoredTicket) {
    const c = columns(this.mode, withoutKeys(ticket));
    return sql<{ version: string }[]>`
      INSERT INTO tickets (mode, id, number, data, item, status, category, priority, agent_id, email_lower, tags,
        search, created_at, first_response_at, last_customer_at, escalated, last_activity_at, waiting_us, due_at,
        snoozed_until, mentions, created_ms, responded_ms, closed_ms, rated_ms, score, priority_rank, search_doc)
      VALUES (${c.mode}, ${c.id}, ${c.number}, ${this.json(c.data)}, ${this.json(c.item)}, ${c.status}, ${c.category},
        ${c.priority}, ${c.agent_id}, ${c.email_lower}, ${c.tags}, ${c.search}, ${c.created_at},
        ${c.first_response_at}, ${c.last_customer_at}, ${c.escalated}, ${c.last_activity_at}, ${c.waiting_us},
        ${c.due_at}, ${c.snoozed_until}, ${c.mentions}, ${c.created_ms}, ${c.responded_ms}, ${c.closed_ms},
        ${c.rated_ms}, ${c.score}, ${c.priority_rank}, ${this.document(sql, c.parts)})
      RETURNING xmin::text AS version`;
  }

  /**
   * A ticket's full-text document: its words as the JSON store's index cuts them, weighted A (subject),
   * B (name, email, tags, id) and D (messages, replies, notes); the 'simple' configuration keeps
   * every word as it is, in any language.
   */
  private document(sql: Sql, parts: { subject: string; who: string; text: string }) {
    return sql`setweight(to_tsvector('simple', ${parts.subject}), 'A')
      || setweight(to_tsvector('simple', ${parts.who}), 'B')
      || setweight(to_tsvector('simple', ${parts.text}), 'D')`;
  }

  /**
   * /v1/search without reading every match: at a million tickets a common word matches hundreds of
   * thousands, and ranking them all (or letting PostgreSQL's estimate of a prefix's matches pick the
   * GIN bitmap of all of them) took 23-42 s. How common each word is comes from counts kept in
   * memory (SearchWordStats, a sample counted every few minutes), so a search is one statement:
   * - with a word held by at most GIN_SHARE of the tickets (and GIN_ROWS), the GIN index gives the
   *   tickets holding the rare words, of any age; the newest CANDIDATES of them have the other words
   *   checked, and the newest RANKED matches are ranked. Every match counted and ranked when they are
   *   fewer, else `capped`.
   * - with common words only, the newest-first index is walked (at most WALK tickets) and the newest
   *   RANKED matches ranked (`capped` unless that walk saw every ticket and found fewer).
   * Either plan is right for any counts: they only choose the cheaper one.
   */
  async search(query: string, limit: number, offset: number): Promise<ListPage & { capped?: boolean }> {
    const { words, number, id } = searchQuery(query);
    if (!words.length && number === undefined && id === undefined) return { items: [], total: 0 };
    const sql = await this.db.q();
    // The ticket a number or an id names exactly comes first (one index lookup).
    const exact =
      number === undefined && id === undefined
        ? []
        : await sql<{ id: string; item: TicketListItem }[]>`
            SELECT id, item FROM tickets WHERE mode = ${this.mode}
              AND (${number === undefined ? sql`FALSE` : sql`number = ${number}`}
                OR ${id === undefined ? sql`FALSE` : sql`id = ${id}`})
            ORDER BY number`;
    const exactIds = exact.map((r) => r.id);
    const page = (items: TicketListItem[], total: number, capped: boolean) => ({
      items: [...exact.map((r) => r.item), ...items].slice(offset, offset + limit),
      total: exact.length + total,
      ...(capped ? { capped } : {}),
    });
    if (!words.length) return page([], 0, false);
    // Every word as a prefix (`dish:*` finds dishwasher); words hold letters and digits only, so
    // nothing in them is tsquery syntax.
    const q = words.map((w) => `${w}:*`).join(' & ');
    // The word matches already given as exact ones are left out; the page is cut after them.
    const skip = Math.max(0, offset - exact.length);
    const take = Math.max(0, offset + limit - exact.length - skip);
    const notExact = sql`NOT (id = ANY(${exactIds}::text[]))`;

    const stats = await this.wordStats();
    const rareAt = Math.min(GIN_ROWS, Math.max(RANKED, stats.tickets * GIN_SHARE));
    const rare = words.filter((w) => stats.matches(w) <= rareAt);
    // The matches to rank, newest first, at most RANKED + 1 (one more tells that there are more), and
    // how many tickets were looked at, whose limit reached also means "at least".
    let matches;
    let looked: number;
    if (rare.length) {
      // Through the GIN index by the rare words only: a common prefix's GIN entries list most of the
      // table (456 ms for two of them at 1M); the subquery's OFFSET 0 keeps the planner from walking
      // the newest-first index for the ORDER BY instead (1.8-9 s for a word in 1 % of a million).
      // The other words are checked on the newest CANDIDATES found (ts_match_vq is @@ as a function,
      // which no index answers), newest first until RANKED + 1 match: a materialized CTE is read in
      // the order it was written.
      const others = rare.length < words.length;
      matches = sql`
        candidates AS MATERIALIZED (
          SELECT item, created_at, id, search_doc FROM (
            SELECT item, created_at, id, search_doc FROM tickets
            WHERE mode = ${this.mode} AND search_doc @@ to_tsquery('simple', ${rare.map((w) => `${w}:*`).join(' & ')})
              AND ${notExact}
            OFFSET 0) found
          ORDER BY created_at DESC, id DESC LIMIT ${CANDIDATES}),
        matches AS MATERIALIZED (
          SELECT item, created_at, id, search_doc FROM candidates
          ${others ? sql`WHERE ts_match_vq(search_doc, to_tsquery('simple', ${q}))` : sql``}
          LIMIT ${RANKED + 1})`;
      looked = CANDIDATES;
    } else {
      // Every word is common: the newest matches, walking the newest-first index (the subquery keeps
      // the planner off the GIN index whatever it estimates), at most WALK tickets of it.
      matches = sql`
        candidates AS MATERIALIZED (
          SELECT 1 FROM tickets WHERE mode = ${this.mode} ORDER BY created_at DESC, id DESC LIMIT ${WALK + 1}),
        matches AS MATERIALIZED (
          SELECT item, created_at, id, search_doc FROM (
            SELECT item, created_at, id, search_doc FROM tickets WHERE mode = ${this.mode}
            ORDER BY created_at DESC, id DESC LIMIT ${WALK}) walked
          WHERE search_doc @@ to_tsquery('simple', ${q}) AND ${notExact} LIMIT ${RANKED + 1})`;
      looked = WALK + 1;
    }
    // One row at least (the counts), with the page's list items beside it when the page has any; only
    // the page's items leave the database.
    const rows = await sql<{ looked: number; found: number; item: TicketListItem | null }[]>`
      WITH ${matches}
      SELECT n.looked, n.found, p.item FROM
        (SELECT (SELECT count(*) FROM candidates)::int AS looked, (SELECT count(*) FROM matches)::int AS found) n
        LEFT JOIN LATERAL (
          SELECT item, created_at, id, ts_rank(search_doc, to_tsquery('simple', ${q})) AS rank FROM (
            SELECT * FROM matches ORDER BY created_at DESC, id DESC LIMIT ${RANKED}) ranked
          ORDER BY rank DESC, created_at DESC, id DESC LIMIT ${take} OFFSET ${skip}) p ON TRUE
      ORDER BY p.rank DESC, p.created_at DESC, p.id DESC`;
    const found = rows[0]!.found;
    const capped = found > RANKED || rows[0]!.looked >= looked;
    const items = rows.flatMap((r) => (r.item ? [r.item] : []));
    return page([...Array<TicketListItem>(skip).fill(undefined as never), ...items], Math.min(found, RANKED), capped);
  }

  /**
   * Counts the words /v1/search plans by in the background, once the port is open: the first search
   * after a start need not wait for the count (180 ms at a million tickets). A failure is left to the
   * first search, which counts again.
   */
  countWords() {
    this.wordStats().catch(() => {});
  }

  /**
   * How common the mode's words are: counted once the port is open (countWords) or by the first
   * search, again after STATS_MS or once this instance wrote a tenth more tickets than were counted
   * (another instance's writes wait for the time). Searches go on with the counts held while new ones
   * are made.
   */
  private async wordStats(): Promise<SearchWordStats> {
    const held = this.stats;
    const stale =
      !held || Date.now() - held.at > STATS_MS || this.writes - this.writesAtStats > held.tickets / 10 + 100;
    if (stale && !this.counting) {
      const writes = this.writes;
      this.counting = SearchWordStats.sample(this.db.sql, this.mode)
        .then((s) => {
          this.stats = s;
          this.writesAtStats = writes;
          return s;
        })
        .finally(() => (this.counting = undefined));
      // A failed count in the background is tried again by the next search; the first one's failure
      // is that search's (503 while the database is gone).
      if (held) this.counting.catch(() => {});
    }
    return held ?? this.counting!;
  }

  /** The migration command's: numbers go on after `last` (the highest the data directory ever gave). */
  async setLastNumber(sql: Sql, last: number) {
    const sequence = numberSequence(this.mode);
    await sql`
      SELECT setval(${sequence}::regclass, GREATEST(${last}, coalesce(pg_sequence_last_value(${sequence}::regclass), ${FIRST_NUMBER - 1})))`;
  }

  /**
   * Fills in what rows written before schema version 3 lack (the inbox's columns, the list view's new
   * fields, a search text with the replies), a page at a time, at start. A row a request rewrites
   * meanwhile has its columns already and is left alone.
   */
  static async refreshRows(db: Database) {
    const sql = db.sql;
    // One condition at a time, each the predicate of its partial index (tickets_stale, tickets_unsearchable):
    // with none left, each look reads an empty index instead of every row (their OR is a sequential scan).
    for (const lacking of [sql`last_activity_at IS NULL`, sql`search_doc IS NULL`])
      for (;;) {
        const rows = await sql<{ mode: KeyMode; data: StoredTicket }[]>`
          SELECT mode, data FROM tickets WHERE ${lacking} LIMIT ${REFRESH_PAGE}`;
        const store = (mode: KeyMode) => new PgTicketStore(db, mode);
        for (const { mode, data } of rows) {
          const c = columns(mode, data);
          await sql`
            UPDATE tickets SET item = ${sql.json(c.item as unknown as postgres.JSONValue)}, search = ${c.search},
              last_activity_at = ${c.last_activity_at}, waiting_us = ${c.waiting_us}, due_at = ${c.due_at},
              snoozed_until = ${c.snoozed_until}, mentions = ${c.mentions}, created_ms = ${c.created_ms},
              responded_ms = ${c.responded_ms}, closed_ms = ${c.closed_ms}, rated_ms = ${c.rated_ms}, score = ${c.score},
              priority_rank = ${c.priority_rank}, search_doc = ${store(mode).document(sql, c.parts)}
            WHERE mode = ${mode} AND id = ${c.id} AND (last_activity_at IS NULL OR search_doc IS NULL)`;
        }
        if (rows.length < REFRESH_PAGE) break;
      }
  }

  async insertFiles(sql: Sql, ticketId: string, files: { id: string; data: Uint8Array }[]) {
    for (const f of files) {
      const bytes = Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
      await sql`INSERT INTO ticket_files (mode, ticket_id, id, data) VALUES (${this.mode}, ${ticketId}, ${f.id}, ${bytes})`;
    }
  }

  /**
   * Stores the key, unless a request that is not past its day holds it. A request storing the same key
   * right now on another instance makes this wait for its transaction; once that commits, the key is
   * taken and the caller recalls its ticket.
   */
  async claimKey(sql: Sql, record: IdempotencyRecord, ticketId: string) {
    const expired = new Date(Date.parse(record.at) - IDEMPOTENCY_MS).toISOString();
    const stored = await sql`
      INSERT INTO idempotency_keys (mode, key, ticket_id, hash, at)
      VALUES (${this.mode}, ${keyDigest(record.key)}, ${ticketId}, ${record.hash}, ${record.at})
      ON CONFLICT (mode, key) DO UPDATE SET ticket_id = EXCLUDED.ticket_id, hash = EXCLUDED.hash, at = EXCLUDED.at
        WHERE idempotency_keys.at <= ${expired}
      RETURNING key`;
    if (!stored.length) throw new IdempotencyKeyTaken(record.key);
  }

  async remove(id: string): Promise<boolean> {
    if (!isId('tkt', id)) return false;
    const sql = await this.db.q();
    const gone = await sql`DELETE FROM tickets WHERE mode = ${this.mode} AND id = ${id} RETURNING id`;
    if (gone.length) await changeNotice(this.db, this.mode, id, undefined);
    afterCommit(() => this.cache.delete(id));
    return gone.length > 0;
  }

  /**
   * The statuses of this mode's tickets that are not closed, for the views of open tickets: a list of
   * them finds those rows by the status index (a shop's few open tickets), where "not closed" would
   * read the years of closed ones. Undefined for the other views.
   */
  private async openStatuses(filter: ListFilter, context: ListContext): Promise<string[] | undefined> {
    return opensView(filter) ? this.notClosed(context.closed) : undefined;
  }

  /** The statuses this mode's tickets have (perStatusOf) that are not among `closed`. */
  private async notClosed(closed: readonly string[]): Promise<string[]> {
    return notClosedOf(await this.perStatus(), closed);
  }

  private where(sql: Sql, filter: ListFilter, context: ListContext, openStatuses?: string[]) {
    const conditions = [sql`mode = ${this.mode}`];
    if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`);
    if (filter.category !== undefined) conditions.push(sql`category = ${filter.category}`);
    if (filter.priority !== undefined) conditions.push(sql`priority = ${filter.priority}`);
    if (filter.agent_id !== undefined) conditions.push(sql`agent_id = ${filter.agent_id}`);
    if (filter.email !== undefined) conditions.push(sql`email_lower = ${filter.email.toLowerCase()}`);
    if (filter.tag !== undefined) conditions.push(sql`${filter.tag} = ANY(tags)`);
    if (filter.q !== undefined) conditions.push(sql`strpos(search, ${filter.q.toLowerCase()}) > 0`);
    // The views of the JSON store's index (store/ticket-index.ts), in SQL.
    const open = openStatuses
      ? sql`status = ANY(${openStatuses}::text[])`
      : sql`NOT (status = ANY(${context.closed as string[]}::text[]))`;
    switch (filter.view) {
      case 'needs_reply':
        conditions.push(sql`${open} AND waiting_us AND ${this.awake(sql, context)}`);
        break;
      case 'snoozed':
        conditions.push(sql`${open} AND ${this.asleep(sql, context)}`);
        break;
      case 'mine':
        conditions.push(context.me === undefined ? sql`FALSE` : sql`${open} AND agent_id = ${context.me}`);
        break;
      case 'mentions':
        conditions.push(context.me === undefined ? sql`FALSE` : sql`${open} AND ${this.mentions(sql, context.me)}`);
        break;
      case 'unassigned':
        conditions.push(sql`${open} AND agent_id IS NULL`);
        break;
      case 'due_soon':
        conditions.push(sql`${open} AND due_at >= ${context.now} AND due_at < ${context.soon}`);
        break;
      case 'overdue':
        conditions.push(sql`${open} AND due_at < ${context.now}`);
        break;
      case 'open':
        conditions.push(open);
        break;
      case 'closed':
        conditions.push(sql`NOT ${open}`);
        break;
      default:
    }
    return conditions.reduce((all, c) => sql`${all} AND ${c}`);
  }

  /**
   * A snooze that has not ended (/snooze). A column of the views' index (schema 10), as every column the
   * views test is: their counts are index-only scans.
   */
  private asleep(sql: Sql, context: ListContext) {
    return sql`snoozed_until > ${context.now}`;
  }

  /** Not asleep: never snoozed, or the snooze has ended. */
  private awake(sql: Sql, context: ListContext) {
    return sql`(snoozed_until IS NULL OR snoozed_until <= ${context.now})`;
  }

  /**
   * A note of the ticket mentions the agent (the list view's `mentions`: a column of the views' index,
   * and GIN-indexed, which `@>` uses). Null when none does: a WHERE or FILTER takes that as false.
   */
  private mentions(sql: Sql, agent: string | null) {
    return sql`mentions @> ARRAY[${agent}]::text[]`;
  }

  /** The orders of the JSON store's index (store/ticket-index.ts, ORDERS). */
  private orderBy(sql: Sql, sort: ListSort) {
    switch (sort) {
      case 'activity':
        return sql`last_activity_at DESC, id DESC`;
      case 'due':
        return sql`due_at ASC NULLS LAST, created_at DESC, id DESC`;
      case 'priority':
        return sql`priority_rank DESC, created_at DESC, id DESC`;
      default:
        return sql`created_at DESC, id DESC`;
    }
  }

  /**
   * A page and its total. When the total is kept (a view, a status, nothing else: see keptPage), one
   * statement answers: the page, the tickets per status and the view's kept number, in one snapshot.
   * Any other filter counts its rows beside the page.
   */
  async list(filter: ListFilter, limit: number, offset: number, context = NEWEST): Promise<ListPage> {
    const { status: _status, view: _view, ...rest } = filter;
    if (Object.values(rest).some((v) => v !== undefined)) return this.countedPage(filter, limit, offset, context);
    if (!opensView(filter)) return (await this.keptPage(filter, limit, offset, context, undefined)).page;
    // The views of open tickets find their rows by the statuses not closed, as last seen (statusesSeen):
    // the statement reads the statuses again in its snapshot, and if one holding tickets was not among
    // those the rows were chosen by (its first ticket since), it runs again with it. Statuses named that
    // hold no ticket match no row and add nothing to the kept numbers.
    let open = notClosedOf(this.statusesSeen ?? (await this.perStatus()), context.closed);
    for (;;) {
      const { page, statuses } = await this.keptPage(filter, limit, offset, context, open);
      const missed = notClosedOf(statuses, context.closed).filter((s) => !open.includes(s));
      if (!missed.length) return page;
      open = [...open, ...missed];
    }
  }

  /** A page whose total counts its rows (a filter beyond a view and a status). */
  private async countedPage(filter: ListFilter, limit: number, offset: number, context: ListContext) {
    const open = await this.openStatuses(filter, context);
    const sql = await this.db.q();
    const [rows, total] = await Promise.all([
      limit > 0
        ? sql<{ item: TicketListItem }[]>`
            SELECT item FROM tickets WHERE ${this.where(sql, filter, context, open)}
            ORDER BY ${this.orderBy(sql, context.sort)} LIMIT ${limit} OFFSET ${offset}`
        : Promise.resolve([]),
      this.count(filter, context),
    ]);
    return { items: rows.map((r) => r.item), total };
  }

  /**
   * The page of a view (and a status) in one statement, one round trip (issue 32: needs_reply at a
   * million tickets took three statements, two round trips, and each costs both processes more than
   * the rows): the tickets per status (perStatusOf), which make the total of the status, all, open
   * and closed views; for an inbox view its kept number (viewCountsOf); and the page, joined to them
   * so an empty page still answers. `open` are the statuses the open views' rows are chosen by.
   */
  private async keptPage(
    filter: ListFilter,
    limit: number,
    offset: number,
    context: ListContext,
    open: string[] | undefined,
  ): Promise<{ page: ListPage; statuses: Record<string, number> }> {
    const { status, view } = filter;
    // An inbox view (open's views but open itself) totals its kept number; the others their statuses'.
    const inbox = view === 'open' || view === 'all' || view === 'closed' ? undefined : view;
    const of = open && (status === undefined ? open : open.filter((s) => s === status));
    const sql = await this.db.q();
    const order = this.orderBy(sql, context.sort);
    // One row: the page's list views as one array (in the page's order), beside the numbers.
    const [row] = await sql<
      ({ statuses: Record<string, number>; status_rows: number; items: string } & ViewCountsRow)[]
    >`
      SELECT k.statuses, k.status_rows, ${inbox ? sql`c.*,` : sql``} p.items FROM
        (SELECT coalesce(jsonb_object_agg(status, n) FILTER (WHERE n > 0), '{}') AS statuses,
            coalesce(sum(rows), 0)::int AS status_rows
          FROM ${this.perStatusOf(sql)}) k
        ${inbox ? sql`CROSS JOIN ${this.viewCountsOf(sql, context, of!, inbox === 'overdue' || inbox === 'due_soon')} c` : sql``}
        CROSS JOIN (SELECT coalesce(json_agg(item ORDER BY ${order}), '[]')::text AS items FROM
          (SELECT item, id, created_at, last_activity_at, due_at, priority_rank FROM tickets
            WHERE ${this.where(sql, filter, context, open)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) q) p`;
    const { statuses, items } = row!;
    this.statusesSeen = statuses;
    // Counted in the first kind only: a client that lists by status and never asks for an inbox view's
    // numbers (viewsOf) still has them folded.
    this.foldIfMany(row!.status_rows, context);
    if (inbox) return { page: pageOfJson(items, this.viewsOf(row!, context)[inbox]), statuses };
    const closed = new Set(context.closed);
    let total = 0;
    for (const [s, n] of Object.entries(statuses)) {
      if (status !== undefined && s !== status) continue;
      if ((view === 'open' && closed.has(s)) || (view === 'closed' && !closed.has(s))) continue;
      total += n;
    }
    return { page: pageOfJson(items, total), statuses };
  }

  /** The tickets of each status this mode holds, as the writing transactions left them (perStatusOf). */
  private async perStatus(): Promise<Record<string, number>> {
    const sql = await this.db.q();
    const rows = await sql<{ status: string; n: number }[]>`SELECT status, n FROM ${this.perStatusOf(sql)} WHERE n > 0`;
    return (this.statusesSeen = Object.fromEntries(rows.map((r) => [r.status, r.n])));
  }

  /**
   * The tickets of each status (`status`, `n`, 0 for a status whose tickets all moved on) and the rows
   * summed (`rows`), as a subquery: the sums of ticket_view_counts' rows of the first kind (schema 12),
   * to which every ticket adds one (`waiting` set), appended by the writing transactions without a
   * lock (schema 13).
   */
  private perStatusOf(sql: Sql) {
    return sql`(SELECT status, sum(n)::int AS n, count(*) AS rows FROM ticket_view_counts
      WHERE mode = ${this.mode} AND waiting IS NOT NULL GROUP BY status) per_status`;
  }

  async count(filter: ListFilter, context = NEWEST): Promise<number> {
    // All the mode's tickets, or one status's (the start's log line, a status about to be removed):
    // the kept sums, not a pass over the rows (250 ms at a million tickets, at every start).
    if (Object.entries(filter).every(([k, v]) => k === 'status' || v === undefined)) {
      const per = await this.perStatus();
      // (Object.hasOwn: a status may be named like an Object method, `constructor`.)
      if (filter.status === undefined) return Object.values(per).reduce((a, b) => a + b, 0);
      return Object.hasOwn(per, filter.status) ? per[filter.status]! : 0;
    }
    const open = await this.openStatuses(filter, context);
    const sql = await this.db.q();
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM tickets WHERE ${this.where(sql, filter, context, open)}`;
    return row!.n;
  }

  /**
   * The inbox views' numbers over the tickets of `statuses`, as one row of a statement (one snapshot),
   * from the numbers the writing transactions keep (schema 12's ticket_view_counts: a few hundred rows,
   * not a pass over every open ticket). What moves with time is counted from rows, few of them: the
   * tickets whose snooze has not ended (tickets_snoozed), and, when `due`, the deadlines from today's
   * (UTC) start to `soon` (tickets_due_status); the days before today's are summed. viewsOf reads the row.
   */
  private viewCountsOf(sql: Sql, context: ListContext, statuses: string[], due: boolean) {
    const me = context.me ?? null;
    // Deadlines are UTC ISO strings: those of days before today's (UTC) have passed.
    const today = context.now.slice(0, 10);
    return sql`
      (SELECT v.*, s.*, d.* FROM
        (SELECT coalesce(sum(n) FILTER (WHERE waiting), 0)::int AS waiting,
            coalesce(sum(n) FILTER (WHERE waiting IS NOT NULL AND agent_id IS NULL), 0)::int AS unassigned,
            coalesce(sum(n) FILTER (WHERE waiting IS NOT NULL AND agent_id = ${me}), 0)::int AS mine,
            coalesce(sum(n) FILTER (WHERE mentioned = ${me}), 0)::int AS mentions,
            coalesce(sum(n) FILTER (WHERE due_day < ${today}), 0)::int AS overdue_before,
            count(*)::int AS rows
          FROM ticket_view_counts WHERE mode = ${this.mode} AND status = ANY(${statuses}::text[])) v,
        (SELECT count(*)::int AS snoozed, count(*) FILTER (WHERE waiting_us)::int AS snoozed_waiting
          FROM tickets WHERE mode = ${this.mode} AND ${this.asleep(sql, context)}
            AND status = ANY(${statuses}::text[])) s,
        ${
          due
            ? sql`(SELECT count(*) FILTER (WHERE due_at < ${context.now})::int AS overdue_today,
                  count(*) FILTER (WHERE due_at >= ${context.now})::int AS soon
                FROM tickets WHERE mode = ${this.mode} AND due_at >= ${today} AND due_at < ${context.soon}
                  AND status = ANY(${statuses}::text[])) d`
            : sql`(SELECT 0 AS overdue_today, 0 AS soon) d`
        })`;
  }

  /** The inbox views' numbers from a row of viewCountsOf; its rows to fold, when many, are folded after. */
  private viewsOf(
    v: ViewCountsRow,
    context: ListContext,
  ): Pick<Counts['views'], 'needs_reply' | 'snoozed' | 'unassigned' | 'mine' | 'mentions' | 'overdue' | 'due_soon'> {
    this.foldIfMany(v.rows, context);
    return {
      needs_reply: v.waiting - v.snoozed_waiting,
      snoozed: v.snoozed,
      unassigned: v.unassigned,
      mine: v.mine,
      mentions: v.mentions,
      overdue: v.overdue_before + v.overdue_today,
      due_soon: v.soon,
    };
  }

  /** Folds ticket_view_counts (in the background) once `rows` of them are COMPACT_AT past the last fold's. */
  private foldIfMany(rows: number, context: ListContext) {
    if (rows > this.folded + COMPACT_AT) void this.compactViewCounts(context.now.slice(0, 10));
  }

  /**
   * Folds this mode's rows of ticket_view_counts (each write appends its +1 and -1) into one row per
   * sum, in one transaction: a reader sees the rows before or after, whose sums are the same; rows of
   * transactions not yet committed are not seen, so not folded, and stay. One instance at a time (a
   * try of an advisory lock: the others leave it to that one).
   */
  private async compactViewCounts(today: string) {
    if (this.compacting) return;
    this.compacting = true;
    try {
      await this.db.sql.begin(async (tx) => {
        const [lock] = await tx<{ ok: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${VIEW_COUNTS_LOCK}, hashtext(${this.mode})) AS ok`;
        if (!lock!.ok) return;
        // The days before yesterday are summed into one ('0' sorts before every day): past stays past,
        // even for an instance whose clock is behind this one's by less than a day.
        const kept = await tx`
          WITH gone AS (DELETE FROM ticket_view_counts WHERE mode = ${this.mode} RETURNING *)
          INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, mentioned, due_day, n)
          SELECT mode, status, agent_id, waiting, mentioned, day, sum(n)
          FROM (SELECT *, CASE WHEN due_day < to_char(${today}::date - 1, 'YYYY-MM-DD') THEN '0' ELSE due_day END AS day FROM gone) g
          GROUP BY mode, status, agent_id, waiting, mentioned, day HAVING sum(n) <> 0`;
        this.folded = kept.count;
      });
    } catch {
      // Nothing is lost: the rows stay as they were, and a later read folds them.
    } finally {
      this.compacting = false;
    }
  }

  /**
   * The statuses' numbers from perStatusOf; the views' from their kept numbers (viewCounts) over
   * the statuses that are not closed. The closed tickets, most of a shop's, are never read.
   */
  async counts(context: ListContext): Promise<Counts> {
    const statuses = await this.perStatus();
    const closed = new Set(context.closed);
    const views = noViews();
    for (const [status, n] of Object.entries(statuses)) {
      views.all += n;
      if (closed.has(status)) views.closed += n;
      else views.open += n;
    }
    const sql = await this.db.q();
    const [row] = await sql<ViewCountsRow[]>`
      SELECT * FROM ${this.viewCountsOf(sql, context, notClosedOf(statuses, context.closed), true)} c`;
    Object.assign(views, this.viewsOf(row!, context));
    return { views, statuses };
  }

  /**
   * Oldest first, a page at a time by (created_at, id): no connection is held between pages. With
   * `active`: the tickets of each status not closed (by the status index), then the closed ones active
   * since then (by the activity index), never the years of closed tickets before.
   */
  async *scan(active?: ActiveSince): AsyncIterable<TicketFacts> {
    const sql = this.db.sql;
    if (!active) {
      yield* this.pages(sql`TRUE`, 'created_at');
      return;
    }
    const open = await this.notClosed(active.closed);
    for (const status of open) yield* this.pages(sql`status = ${status}`, 'created_at');
    yield* this.pages(
      sql`last_activity_at >= ${active.since} AND NOT (status = ANY(${open}::text[]))`,
      'last_activity_at',
    );
  }

  /**
   * A report's sums in one statement over the rows a scan with `question.active` gives (the statuses
   * not closed, and the closed tickets active since the period began), instead of those rows' list
   * views read into Node. What it reads are the report's own columns (schema 11: each time as epoch
   * milliseconds, the score), held by the tickets_report index beside the columns that choose the
   * rows, so a month is an index-only scan: no row and no list view is read. The period's days are
   * given as their bounds (the local midnights, from luxon), and a duration's figure is taken from
   * the values at its nearest ranks, as buildReport takes them (reports/report.ts).
   */
  async reportSums(question: ReportQuestion): Promise<ReportSums> {
    const statuses = await this.reportStatuses(question);
    const sql = await this.db.q();
    const days = question.bounds.length - 1;
    const bounds = question.bounds.map((b) => Date.parse(b));
    const rows = this.reportRows(sql, question, statuses);
    const sla = question.sla;
    const now = Date.parse(question.now);
    // A priority without minutes has no deadline (NULL): never late, as a NaN deadline is in buildReport.
    // Integers throughout (milliseconds, whole minutes), so each sum and comparison is JavaScript's exactly.
    const late = (minutes: Record<string, number> | undefined, done: postgres.PendingQuery<postgres.Row[]>) => {
      const entries = Object.entries(minutes ?? {});
      if (!entries.length) return sql`NULL::boolean`;
      const cases = entries.reduce((all, [p, m]) => sql`${all} WHEN ${p} THEN ${m * 60_000}::bigint`, sql``);
      return sql`(${done} > created_ms + CASE priority ${cases} END)`;
    };
    // One sort per duration: the sorted values, then the ranks buildReport reads (0.9 n rounded up as a
    // float8 product, as JavaScript computes it). Empty: NULL.
    const ranks = (value: string, when: string) => sql`
      (SELECT ARRAY[n, a[ceil(n / 2.0)::int], a[n - ceil(n / 2.0)::int + 1], a[ceil(0.9::float8 * n)::int]]::float8[]
        FROM (SELECT a, cardinality(a) AS n FROM (
          SELECT array_agg(${sql.unsafe(value)} ORDER BY ${sql.unsafe(value)}) AS a FROM d
          WHERE ${sql.unsafe(when)} AND ${sql.unsafe(value)} IS NOT NULL) x) y) AS ${sql(value)}`;
    // In business hours the durations and deadlines are made in Node (hours/business-hours.ts), from
    // the same index's columns: the statement leaves them out.
    const inSql = question.hours === null;
    const [row] = await sql<
      ({
        opened: [number, number][] | null;
        closed: [number, number][] | null;
        backlog: Record<string, number> | null;
        first_response: number[] | null;
        resolution: number[] | null;
      } & Record<string, number>)[]
    >`
      WITH t AS MATERIALIZED (
        SELECT status, priority, created_ms, responded_ms, closed_ms, score,
          width_bucket(created_ms, ${bounds}::bigint[]) AS created_day,
          width_bucket(closed_ms, ${bounds}::bigint[]) AS closed_day,
          rated_ms >= ${bounds[0]!}::bigint AND rated_ms < ${bounds[days]!}::bigint AS rated_in
        FROM (${rows}) r
      ), d AS (
        SELECT *, created_day BETWEEN 1 AND ${days} AS created_in, closed_day BETWEEN 1 AND ${days} AS closed_in,
          -- greatest() passes over a NULL: a ticket without the time has no span.
          CASE WHEN responded_ms IS NOT NULL THEN greatest(0, responded_ms - created_ms) END AS first_response,
          CASE WHEN closed_ms IS NOT NULL THEN greatest(0, closed_ms - created_ms) END AS resolution,
          ${late(sla?.first_response_minutes, sql`coalesce(responded_ms, closed_ms, ${now}::bigint)`)} AS first_late,
          ${late(sla?.resolution_minutes, sql`coalesce(closed_ms, ${now}::bigint)`)} AS resolve_late
        FROM t
      )
      SELECT
        (SELECT json_agg(json_build_array(created_day, n)) FROM (
          SELECT created_day, count(*)::int AS n FROM d WHERE created_in GROUP BY created_day) x) AS opened,
        (SELECT json_agg(json_build_array(closed_day, n)) FROM (
          SELECT closed_day, count(*)::int AS n FROM d WHERE closed_in GROUP BY closed_day) x) AS closed,
        (SELECT json_object_agg(status, n) FROM (
          SELECT status, count(*)::int AS n FROM d WHERE NOT status = ANY(${question.active.closed}::text[])
          GROUP BY status) x) AS backlog,
        ${inSql ? ranks('first_response', 'created_in') : sql`NULL AS first_response`},
        ${inSql ? ranks('resolution', 'closed_in') : sql`NULL AS resolution`},
        count(*) FILTER (WHERE created_in)::int AS sla_tickets,
        count(*) FILTER (WHERE created_in AND first_late)::int AS sla_first,
        count(*) FILTER (WHERE created_in AND resolve_late)::int AS sla_resolve,
        count(*) FILTER (WHERE created_in AND (first_late OR resolve_late))::int AS sla_breached,
        count(*) FILTER (WHERE rated_in AND score = 1)::int AS score_1,
        count(*) FILTER (WHERE rated_in AND score = 2)::int AS score_2,
        count(*) FILTER (WHERE rated_in AND score = 3)::int AS score_3,
        count(*) FILTER (WHERE rated_in AND score = 4)::int AS score_4,
        count(*) FILTER (WHERE rated_in AND score = 5)::int AS score_5
      FROM d`;
    const r = row!;
    const perDay = (pairs: [number, number][] | null) => {
      const out = new Array<number>(days).fill(0);
      for (const [day, n] of pairs ?? []) out[day - 1] = n;
      return out;
    };
    const figure = (ranked: number[] | null): DurationRanks => ({
      count: ranked?.[0] ?? 0,
      low: ranked?.[1] ?? null,
      high: ranked?.[2] ?? null,
      p90: ranked?.[3] ?? null,
    });
    if (question.hours) {
      const spans = await this.businessSpans(sql, question, question.hours, rows, bounds);
      Object.assign(r, spans.breaches);
      r.first_response = spans.firstResponse;
      r.resolution = spans.resolution;
    }
    return {
      opened: perDay(r.opened),
      closed: perDay(r.closed),
      firstResponse: figure(r.first_response),
      resolution: figure(r.resolution),
      breaches: sla
        ? {
            tickets: r.sla_tickets!,
            first_response_breaches: r.sla_first!,
            resolution_breaches: r.sla_resolve!,
            breached_tickets: r.sla_breached!,
          }
        : { tickets: 0, first_response_breaches: 0, resolution_breaches: 0, breached_tickets: 0 },
      scores: [r.score_1!, r.score_2!, r.score_3!, r.score_4!, r.score_5!],
      comments: await this.reportComments(question, statuses),
      backlog: r.backlog ?? {},
    };
  }

  /**
   * A report's durations and SLA breaches counted in business hours: the created and closed tickets
   * of the period, their times read from the report's index, measured by one clock of open spans
   * (businessClock) as buildReport measures them. Durations as ranks in milliseconds, as the SQL gives.
   */
  private async businessSpans(
    sql: Sql,
    question: ReportQuestion,
    hours: BusinessHours,
    rows: postgres.PendingQuery<postgres.Row[]>,
    bounds: number[],
  ) {
    const first = bounds[0]!;
    const end = bounds.at(-1)!;
    const found = await sql<{ p: string; c: string; r: string | null; d: string | null }[]>`
      SELECT priority AS p, created_ms::text AS c, responded_ms::text AS r, closed_ms::text AS d FROM (${rows}) x
      WHERE (created_ms >= ${first}::bigint AND created_ms < ${end}::bigint)
        OR (closed_ms >= ${first}::bigint AND closed_ms < ${end}::bigint)`;
    const clock = businessClock(hours);
    const now = Date.parse(question.now);
    const firsts: number[] = [];
    const resolutions: number[] = [];
    const breaches = { sla_tickets: 0, sla_first: 0, sla_resolve: 0, sla_breached: 0 };
    for (const f of found) {
      const created = Number(f.c);
      const responded = f.r === null ? null : Number(f.r);
      const closed = f.d === null ? null : Number(f.d);
      if (created >= first && created < end) {
        if (responded !== null) firsts.push(clock.between(created, responded));
        if (question.sla) {
          breaches.sla_tickets++;
          const firstLate =
            (responded ?? closed ?? now) > clock.deadline(created, question.sla.first_response_minutes[f.p]!);
          const resolveLate = (closed ?? now) > clock.deadline(created, question.sla.resolution_minutes[f.p]!);
          if (firstLate) breaches.sla_first++;
          if (resolveLate) breaches.sla_resolve++;
          if (firstLate || resolveLate) breaches.sla_breached++;
        }
      }
      if (closed !== null && closed >= first && closed < end) resolutions.push(clock.between(created, closed));
    }
    // The ranks buildReport reads (reports/report.ts, durationFigure), as the statement's ranks() gives them.
    const ranked = (values: number[]) => {
      const v = values.sort((a, b) => a - b);
      const n = v.length;
      return n ? [n, v[Math.ceil(n / 2) - 1]!, v[n - Math.ceil(n / 2)]!, v[Math.ceil(0.9 * n) - 1]!] : null;
    };
    return { breaches, firstResponse: ranked(firsts), resolution: ranked(resolutions) };
  }

  /**
   * This mode's statuses (perStatusOf), split into those not closed and the closed ones: each is a
   * range of the tickets_report index (status, mode, last_activity_at) that a report reads.
   */
  private async reportStatuses(question: ReportQuestion): Promise<ReportStatuses> {
    const closed = new Set(question.active.closed);
    const all = Object.keys(await this.perStatus());
    return { open: all.filter((s) => !closed.has(s)), closed: all.filter((s) => closed.has(s)) };
  }

  /**
   * The report's columns of the rows a scan with `question.active` gives, filtered: the tickets of the
   * statuses not closed, then those of the closed ones active since the period began, each read from
   * the tickets_report index alone. (A closed status is named rather than "not open", so the index's
   * first column is matched on any PostgreSQL; one that got its first ticket after the statuses were
   * read is missed by this one report, as a ticket closed a moment later would be.)
   */
  private reportRows(sql: Sql, question: ReportQuestion, statuses: ReportStatuses) {
    const filters = [
      question.category === undefined ? sql`` : sql`AND category = ${question.category}`,
      question.agent === undefined
        ? sql``
        : question.agent === null
          ? sql`AND agent_id IS NULL`
          : sql`AND agent_id = ${question.agent}`,
      question.tag === undefined ? sql`` : sql`AND ${question.tag} = ANY(tags)`,
    ];
    const picked = sql`id, status, priority, created_ms, responded_ms, closed_ms, rated_ms, score`;
    return sql`
      SELECT ${picked} FROM tickets WHERE status = ANY(${statuses.open}::text[]) AND mode = ${this.mode}
        ${filters[0]!} ${filters[1]!} ${filters[2]!}
      UNION ALL
      SELECT ${picked} FROM tickets WHERE status = ANY(${statuses.closed}::text[]) AND mode = ${this.mode}
        AND last_activity_at >= ${question.active.since} ${filters[0]!} ${filters[1]!} ${filters[2]!}`;
  }

  /**
   * The newest rating comments of the period that are not blank (as JavaScript's trim() sees blank),
   * newest first by when they were given, a page at a time until enough: the rated rows are found in
   * the report's index, and only each page's list views are read for their comments.
   */
  private async reportComments(question: ReportQuestion, statuses: ReportStatuses): Promise<ReportSums['comments']> {
    const sql = await this.db.q();
    const first = Date.parse(question.bounds[0]!);
    const end = Date.parse(question.bounds.at(-1)!);
    const out: ReportSums['comments'] = [];
    const page = Math.max(question.comments, 1) * 4;
    for (let offset = 0; out.length < question.comments; offset += page) {
      const rows = await sql<
        { ticket_id: string; subject: string; score: number; comment: string | null; rated_at: string }[]
      >`
        SELECT t.id AS ticket_id, j.subject, (j.rating->>'score')::int AS score, j.rating->>'comment' AS comment,
          j.rating->>'rated_at' AS rated_at
        FROM (
          SELECT id, rated_ms FROM (${this.reportRows(sql, question, statuses)}) r
          WHERE rated_ms >= ${first}::bigint AND rated_ms < ${end}::bigint
          ORDER BY rated_ms DESC, id LIMIT ${page} OFFSET ${offset}
        ) p
        JOIN tickets t ON t.mode = ${this.mode} AND t.id = p.id,
          LATERAL jsonb_to_record(t.item) AS j (subject text, rating jsonb)
        ORDER BY p.rated_ms DESC, p.id`;
      for (const c of rows) {
        const comment = c.comment?.trim();
        if (comment && out.length < question.comments) out.push({ ...c, comment });
      }
      if (rows.length < page) break;
    }
    return out;
  }

  /** The rows that match, a page at a time in the order of (`key`, id). */
  private async *pages(
    match: postgres.PendingQuery<postgres.Row[]>,
    key: 'created_at' | 'last_activity_at',
  ): AsyncIterable<TicketFacts> {
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const sql = await this.db.q();
      const rows = await sql<
        {
          item: TicketListItem;
          at: string;
          first_response_at: string | null;
          last_customer_at: string;
          escalated: string[];
        }[]
      >`
        SELECT item, ${sql(key)} AS at, first_response_at, last_customer_at, escalated FROM tickets
        WHERE mode = ${this.mode} AND ${match}
          ${after ? sql`AND (${sql(key)}, id) > (${after.at}, ${after.id})` : sql``}
        ORDER BY ${sql(key)}, id LIMIT ${SCAN_PAGE}`;
      for (const r of rows)
        yield {
          item: r.item,
          firstResponseAt: r.first_response_at,
          lastCustomerAt: r.last_customer_at,
          escalated: r.escalated,
        };
      if (rows.length < SCAN_PAGE) return;
      const last = rows.at(-1)!;
      after = { at: last.at, id: last.item.id };
    }
  }

  async recallIdempotency(key: string) {
    const sql = await this.db.q();
    const [row] = await sql<{ ticket_id: string; hash: string; at: string }[]>`
      SELECT ticket_id, hash, at FROM idempotency_keys WHERE mode = ${this.mode} AND key = ${keyDigest(key)}`;
    return row && { ticketId: row.ticket_id, hash: row.hash, at: row.at };
  }

  async read(ticketId: string, fileId: string): Promise<Uint8Array | undefined> {
    if (!isId('tkt', ticketId) || !isId('fil', fileId)) return undefined;
    const sql = await this.db.q();
    const [row] = await sql<{ data: Buffer }[]>`
      SELECT data FROM ticket_files WHERE mode = ${this.mode} AND ticket_id = ${ticketId} AND id = ${fileId}`;
    return row?.data;
  }

  // Every write is committed when it resolves: nothing to write out, nothing held.
  flush() {
    return Promise.resolve();
  }

  idle() {
    return Promise.resolve();
  }

  close() {
    return Promise.resolve();
  }
}
