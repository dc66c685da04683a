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
import { changeNotice, type ChangeFeed, type Heard } from './change-feed.js';
import { CoalescedReads } from './coalesced-reads.js';
import type { Database, Sql } from './database.js';

const SCAN_PAGE = 1000;
/** /v1/search: the newest tickets whose matches tell a common query from a rare one. */
const PROBE = 500;
/**
 * A word matching at most this many of the PROBE newest is rare (about 0.2 %: a few thousand of a
 * million), found through the GIN index; a query of commoner words walks the newest tickets.
 */
const RARE = 1;
/** A common query ranks its newest this many matches: beyond them `total` is "at least". */
const RANKED = 500;
/**
 * A query of common words walks at most this many newest tickets (about 35 ms warm at 1M): words
 * that each match 0.2-10 % of the tickets find their matches among these only (`capped`).
 */
const WALK = 5000;

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
/** Reads checked by one statement at most. */

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

/** The columns of a ticket's row: the record whole, its list view, and what filters and the scheduler read. */
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
      // The counter row's lock (below) is then released when the commit is written, not once on disk.
      await this.db.commitsLater();
      const sql = await this.db.q();
      if (change.idempotency) await this.claimKey(sql, change.idempotency, change.ticket.id);
      // The counter row stays locked until this transaction ends: creates on every instance take
      // their numbers one after the other, and a rollback gives the number back. Its answer is
      // awaited (the 201 carries the number); the ticket's row then goes out with the next statement.
      const [given] = await sql<{ last: number }[]>`
        INSERT INTO ticket_numbers (mode, last) VALUES (${this.mode}, ${FIRST_NUMBER})
        ON CONFLICT (mode) DO UPDATE SET last = ticket_numbers.last + 1
        RETURNING last`;
      const ticket = withNumber(withoutKeys(change.ticket), given!.last);
      // Nothing is read back: the row goes out with the unit's next statement, or with its COMMIT.
      const { answer } = await this.db.later((q) => this.insert(q, ticket));
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
          priority_rank = ${c.priority_rank}, search_doc = ${this.document(sql, c.parts)}
        WHERE mode = ${this.mode} AND id = ${id}
        RETURNING xmin::text AS version`;
      await this.insertFiles(sql, id, next.files ?? []);
      // Every instance drops a copy of an older version when it commits (goes out with the COMMIT).
      await this.db.later((q) => changeNotice(q, this.mode, id, updated!.version));
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
    const rows = tickets.map((t) => {
      const { parts, ...c } = columns(this.mode, withoutKeys(t));
      return { ...c, parts };
    });
    await sql`
      INSERT INTO tickets (mode, id, number, data, item, status, category, priority, agent_id, email_lower, tags,
        search, created_at, first_response_at, last_customer_at, escalated, last_activity_at, waiting_us, due_at,
        snoozed_until, mentions, priority_rank, search_doc)
      SELECT r.mode, r.id, r.number, r.data, r.item, r.status, r.category, r.priority, r.agent_id, r.email_lower,
        r.tags, r.search, r.created_at, r.first_response_at, r.last_customer_at, r.escalated, r.last_activity_at,
        r.waiting_us, r.due_at, r.snoozed_until, r.mentions, r.priority_rank,
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
        snoozed_until, mentions, priority_rank, search_doc)
      VALUES (${c.mode}, ${c.id}, ${c.number}, ${this.json(c.data)}, ${this.json(c.item)}, ${c.status}, ${c.category},
        ${c.priority}, ${c.agent_id}, ${c.email_lower}, ${c.tags}, ${c.search}, ${c.created_at},
        ${c.first_response_at}, ${c.last_customer_at}, ${c.escalated}, ${c.last_activity_at}, ${c.waiting_us},
        ${c.due_at}, ${c.snoozed_until}, ${c.mentions}, ${c.priority_rank}, ${this.document(sql, c.parts)})
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
   * GIN bitmap of all of them) took 23-42 s. So the newest PROBE tickets are read first and their
   * matches counted per word: a query with a rare word asks the GIN index for its rare words and
   * checks the rest on the few rows it gives, counting and ranking every match; one of common words
   * walks the newest-first index (at most WALK tickets) and ranks its newest RANKED matches only
   * (`capped`: `total` is then "at least").
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
    const page = (items: TicketListItem[], total: number, capped?: boolean) => ({
      items: [...exact.map((r) => r.item), ...items].slice(offset, offset + limit),
      total: exact.length + total,
      ...(capped ? { capped } : {}),
    });
    if (!words.length) return page([], 0);
    // Every word as a prefix (`dish:*` finds dishwasher); words hold letters and digits only, so
    // nothing in them is tsquery syntax.
    const prefixes = words.map((w) => `${w}:*`);
    const q = prefixes.join(' & ');
    // The word matches already given as exact ones are left out; the page is cut after them.
    const skip = Math.max(0, offset - exact.length);
    // (At least one row, which carries the total, when the exact ones fill the page.)
    const take = Math.max(1, offset + limit - exact.length - skip);
    const notExact = sql`NOT (id = ANY(${exactIds}::text[]))`;
    const rank = sql`ts_rank(search_doc, to_tsquery('simple', ${q}))`;

    // (With how many tickets there are, up to WALK + 1: an index-only count.)
    const probed = await sql<{ q: string; n: number; tickets: number }[]>`
      SELECT p.q, count(*) FILTER (WHERE newest.search_doc @@ to_tsquery('simple', p.q))::int AS n,
        (SELECT count(*)::int FROM (SELECT 1 FROM tickets WHERE mode = ${this.mode}
          ORDER BY created_at DESC, id DESC LIMIT ${WALK + 1}) t) AS tickets
      FROM (SELECT search_doc FROM tickets WHERE mode = ${this.mode}
            ORDER BY created_at DESC, id DESC LIMIT ${PROBE}) newest
      CROSS JOIN unnest(${[q, ...prefixes]}::text[]) AS p(q)
      GROUP BY p.q`;
    const seen = new Map(probed.map((r) => [r.q, r.n]));
    const rare = prefixes.filter((w) => (seen.get(w) ?? 0) <= RARE);

    if (rare.length) {
      // Through the GIN index by the rare words only: a common prefix's GIN entries list most of the
      // table (456 ms for two of them at 1M); the other words are checked on the rows found
      // (ts_match_vq is @@ as a function, which no index answers).
      const rows = await sql<{ item: TicketListItem; total: number }[]>`
        SELECT item, count(*) OVER ()::int AS total FROM tickets
        WHERE mode = ${this.mode} AND search_doc @@ to_tsquery('simple', ${rare.join(' & ')})
          AND ts_match_vq(search_doc, to_tsquery('simple', ${q})) AND ${notExact}
        ORDER BY ${rank} DESC, created_at DESC, id DESC
        LIMIT ${take} OFFSET ${skip}`;
      const total =
        rows[0]?.total ??
        (skip > 0
          ? (
              await sql<{ n: number }[]>`
                SELECT count(*)::int AS n FROM tickets WHERE mode = ${this.mode}
                  AND search_doc @@ to_tsquery('simple', ${rare.join(' & ')})
                  AND ts_match_vq(search_doc, to_tsquery('simple', ${q})) AND ${notExact}`
            )[0]!.n
          : 0);
      return page([...Array(skip).fill(undefined), ...rows.map((r) => r.item)], total);
    }
    // Every word is common: the newest matches, walking the newest-first index (the subquery keeps
    // the planner off the GIN index whatever it estimates), at most WALK tickets of it.
    const newest = sql`SELECT item, created_at, id, ${rank} AS rank FROM (
        SELECT item, created_at, id, search_doc FROM tickets WHERE mode = ${this.mode}
        ORDER BY created_at DESC, id DESC LIMIT ${WALK}) walked
      WHERE search_doc @@ to_tsquery('simple', ${q}) AND ${notExact} LIMIT ${RANKED}`;
    const rows = await sql<{ item: TicketListItem; total: number }[]>`
      SELECT item, count(*) OVER ()::int AS total FROM (${newest}) ranked
      ORDER BY rank DESC, created_at DESC, id DESC LIMIT ${take} OFFSET ${skip}`;
    const found =
      rows[0]?.total ??
      (skip > 0 ? (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (${newest}) ranked`)[0]!.n : 0);
    const walkedAll = (probed[0]?.tickets ?? 0) <= WALK;
    return page([...Array(skip).fill(undefined), ...rows.map((r) => r.item)], found, found >= RANKED || !walkedAll);
  }

  /** The migration command's: numbers go on after `last` (the highest the data directory ever gave). */
  async setLastNumber(sql: Sql, last: number) {
    await sql`
      INSERT INTO ticket_numbers (mode, last) VALUES (${this.mode}, ${last})
      ON CONFLICT (mode) DO UPDATE SET last = GREATEST(ticket_numbers.last, EXCLUDED.last)`;
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
              snoozed_until = ${c.snoozed_until}, mentions = ${c.mentions},
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
    if (gone.length) await this.db.later((q) => changeNotice(q, this.mode, id, undefined));
    afterCommit(() => this.cache.delete(id));
    return gone.length > 0;
  }

  /**
   * The statuses of this mode's tickets that are not closed, for the views of open tickets: a list of
   * them finds those rows by the status index (a shop's few open tickets), where "not closed" would
   * read the years of closed ones. Undefined for the other views.
   */
  private async openStatuses(filter: ListFilter, context: ListContext): Promise<string[] | undefined> {
    if (filter.view === undefined || filter.view === 'all' || filter.view === 'closed') return undefined;
    return this.notClosed(context.closed);
  }

  /** The statuses this mode's tickets have (ticket_counts) that are not among `closed`. */
  private async notClosed(closed: readonly string[]): Promise<string[]> {
    const closedSet = new Set(closed);
    return Object.keys(await this.perStatus()).filter((s) => !closedSet.has(s));
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

  async list(filter: ListFilter, limit: number, offset: number, context = NEWEST): Promise<ListPage> {
    const open = await this.openStatuses(filter, context);
    const sql = await this.db.q();
    const [rows, total] = await Promise.all([
      limit > 0
        ? sql<{ item: TicketListItem }[]>`
            SELECT item FROM tickets WHERE ${this.where(sql, filter, context, open)}
            ORDER BY ${this.orderBy(sql, context.sort)} LIMIT ${limit} OFFSET ${offset}`
        : Promise.resolve([]),
      this.byStatusTotal(filter, context) ?? this.count(filter, context),
    ]);
    return { items: rows.map((r) => r.item), total };
  }

  /**
   * A list's total from the tickets per status (ticket_counts) when the filter asks for nothing else
   * than a status or the all, open or closed view: those are the big totals (every closed ticket of
   * years), which counting rows would read whole. Undefined for any other filter.
   */
  private byStatusTotal(filter: ListFilter, context: ListContext): Promise<number> | undefined {
    const { status, view, ...rest } = filter;
    if (Object.values(rest).some((v) => v !== undefined)) return undefined;
    if (view !== undefined && view !== 'all' && view !== 'open' && view !== 'closed') return undefined;
    return this.perStatus().then((statuses) => {
      const closed = new Set(context.closed);
      let total = 0;
      for (const [s, n] of Object.entries(statuses)) {
        if (status !== undefined && s !== status) continue;
        if ((view === 'open' && closed.has(s)) || (view === 'closed' && !closed.has(s))) continue;
        total += n;
      }
      return total;
    });
  }

  /** The tickets of each status this mode holds, as the writing transactions left them (migration 7's trigger). */
  private async perStatus(): Promise<Record<string, number>> {
    const sql = await this.db.q();
    const rows = await sql<{ status: string; n: number }[]>`
      SELECT status, n::int AS n FROM ticket_counts WHERE mode = ${this.mode} AND n > 0`;
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  async count(filter: ListFilter, context = NEWEST): Promise<number> {
    const open = await this.openStatuses(filter, context);
    const sql = await this.db.q();
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM tickets WHERE ${this.where(sql, filter, context, open)}`;
    return row!.n;
  }

  /**
   * The statuses' numbers from ticket_counts, and one pass over the tickets of the statuses that are
   * not closed (found by the status index) for the views; the sums are made as the JSON store's index
   * makes them. The closed tickets, most of a shop's, are never read.
   */
  async counts(context: ListContext): Promise<Counts> {
    const statuses = await this.perStatus();
    const closed = new Set(context.closed);
    const open = Object.keys(statuses).filter((s) => !closed.has(s));
    const sql = await this.db.q();
    const rows = await sql<
      {
        waiting: number;
        snoozed: number;
        unassigned: number;
        mine: number;
        mentions: number;
        overdue: number;
        soon: number;
      }[]
    >`
      SELECT
        count(*) FILTER (WHERE waiting_us AND ${this.awake(sql, context)})::int AS waiting,
        count(*) FILTER (WHERE ${this.asleep(sql, context)})::int AS snoozed,
        count(*) FILTER (WHERE agent_id IS NULL)::int AS unassigned,
        count(*) FILTER (WHERE agent_id = ${context.me ?? null})::int AS mine,
        count(*) FILTER (WHERE ${this.mentions(sql, context.me ?? null)})::int AS mentions,
        count(*) FILTER (WHERE due_at < ${context.now})::int AS overdue,
        count(*) FILTER (WHERE due_at >= ${context.now} AND due_at < ${context.soon})::int AS soon
      FROM tickets WHERE mode = ${this.mode} AND status = ANY(${open}::text[])`;
    const views = noViews();
    for (const [status, n] of Object.entries(statuses)) {
      views.all += n;
      if (closed.has(status)) views.closed += n;
      else views.open += n;
    }
    for (const r of rows) {
      views.needs_reply += r.waiting;
      views.snoozed += r.snoozed;
      views.unassigned += r.unassigned;
      views.mine += r.mine;
      views.mentions += r.mentions;
      views.overdue += r.overdue;
      views.due_soon += r.soon;
    }
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
   * views read into Node: the period's days are given as their bounds (the local midnights, from
   * luxon), times are compared as instants in milliseconds, and a duration's figure is taken from the
   * values at its nearest ranks, as buildReport takes them (reports/report.ts).
   */
  async reportSums(question: ReportQuestion): Promise<ReportSums> {
    const open = await this.notClosed(question.active.closed);
    const sql = await this.db.q();
    const days = question.bounds.length - 1;
    // Milliseconds as float8, as JavaScript holds them: a deadline's sum and its comparison round alike.
    const ms = (at: postgres.PendingQuery<postgres.Row[]>) => sql`(extract(epoch FROM ${at}) * 1000)::float8`;
    const filters = [
      question.category === undefined ? sql`` : sql`AND category = ${question.category}`,
      question.agent === undefined
        ? sql``
        : question.agent === null
          ? sql`AND agent_id IS NULL`
          : sql`AND agent_id = ${question.agent}`,
      question.tag === undefined ? sql`` : sql`AND ${question.tag} = ANY(tags)`,
    ];
    const matching = sql`mode = ${this.mode}
      AND (status = ANY(${open}::text[]) OR (last_activity_at >= ${question.active.since} AND NOT status = ANY(${open}::text[])))
      ${filters[0]!} ${filters[1]!} ${filters[2]!}`;
    const bounds = sql`${question.bounds}::timestamptz[]`;
    const sla = question.sla;
    // A priority without minutes has no deadline (NULL): never late, as a NaN deadline is in buildReport.
    const late = (minutes: Record<string, number> | undefined, done: postgres.PendingQuery<postgres.Row[]>) => {
      const entries = Object.entries(minutes ?? {});
      if (!entries.length) return sql`NULL::boolean`;
      const cases = entries.reduce((all, [p, m]) => sql`${all} WHEN ${p} THEN ${m}::float8 * 60000`, sql``);
      return sql`(${done} > created + CASE priority ${cases} END)`;
    };
    // One sort per duration: the sorted values, then the ranks buildReport reads (0.9 n rounded up as a
    // float8 product, as JavaScript computes it). Empty: NULL.
    const ranks = (value: string, when: string) => sql`
      (SELECT ARRAY[n, a[ceil(n / 2.0)::int], a[n - ceil(n / 2.0)::int + 1], a[ceil(0.9::float8 * n)::int]]
        FROM (SELECT a, cardinality(a) AS n FROM (
          SELECT array_agg(${sql.unsafe(value)} ORDER BY ${sql.unsafe(value)}) AS a FROM d
          WHERE ${sql.unsafe(when)} AND ${sql.unsafe(value)} IS NOT NULL) x) y) AS ${sql(value)}`;
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
        SELECT status, priority, created, closed, responded, score,
          width_bucket(created_tz, ${bounds}) AS created_day,
          width_bucket(closed_tz, ${bounds}) AS closed_day,
          rated_tz >= (${bounds})[1] AND rated_tz < (${bounds})[${days + 1}] AS rated_in
        FROM (
          SELECT status, priority, created_tz, closed_tz, rated_tz, score,
            ${ms(sql`created_tz`)} AS created, ${ms(sql`closed_tz`)} AS closed, ${ms(sql`responded_tz`)} AS responded
          FROM (
            -- The list view is read once per row (each item->… would unpack the stored jsonb again).
            SELECT status, priority, created_at::timestamptz AS created_tz, first_response_at::timestamptz AS responded_tz,
              j.closed_at::timestamptz AS closed_tz, (j.rating->>'rated_at')::timestamptz AS rated_tz,
              (j.rating->>'score')::int AS score
            FROM tickets, LATERAL jsonb_to_record(item) AS j (closed_at text, rating jsonb)
            WHERE ${matching}
          ) p
        ) r
      ), d AS (
        SELECT *, created_day BETWEEN 1 AND ${days} AS created_in, closed_day BETWEEN 1 AND ${days} AS closed_in,
          -- greatest() passes over a NULL: a ticket without the time has no span.
          CASE WHEN responded IS NOT NULL THEN greatest(0, responded - created) END AS first_response,
          CASE WHEN closed IS NOT NULL THEN greatest(0, closed - created) END AS resolution,
          ${late(sla?.first_response_minutes, sql`coalesce(responded, closed, ${ms(sql`${question.now}::timestamptz`)})`)} AS first_late,
          ${late(sla?.resolution_minutes, sql`coalesce(closed, ${ms(sql`${question.now}::timestamptz`)})`)} AS resolve_late
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
        ${ranks('first_response', 'created_in')},
        ${ranks('resolution', 'closed_in')},
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
      comments: await this.reportComments(question, matching),
      backlog: r.backlog ?? {},
    };
  }

  /**
   * The newest rating comments of the period that are not blank (as JavaScript's trim() sees blank),
   * newest first by rated_at as text (as buildReport sorts them), a page at a time until enough.
   */
  private async reportComments(
    question: ReportQuestion,
    matching: postgres.PendingQuery<postgres.Row[]>,
  ): Promise<ReportSums['comments']> {
    const sql = await this.db.q();
    const first = question.bounds[0]!;
    const end = question.bounds.at(-1)!;
    const out: ReportSums['comments'] = [];
    const page = Math.max(question.comments, 1) * 2;
    for (let offset = 0; out.length < question.comments; offset += page) {
      const rows = await sql<
        { ticket_id: string; subject: string; score: number; comment: string; rated_at: string }[]
      >`
        SELECT ticket_id, subject, (rating->>'score')::int AS score, rating->>'comment' AS comment,
          rating->>'rated_at' AS rated_at
        FROM (
          SELECT id AS ticket_id, j.subject, j.rating FROM tickets,
            LATERAL jsonb_to_record(item) AS j (subject text, rating jsonb)
          WHERE ${matching}
        ) r
        WHERE rating->>'comment' IS NOT NULL
          AND (rating->>'rated_at')::timestamptz >= ${first}::timestamptz
          AND (rating->>'rated_at')::timestamptz < ${end}::timestamptz
        ORDER BY (rating->>'rated_at') COLLATE "C" DESC, ticket_id
        LIMIT ${page} OFFSET ${offset}`;
      for (const c of rows) {
        const comment = c.comment.trim();
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
