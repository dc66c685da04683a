import postgres from 'postgres';
import { migrate, numberSequence, VIEW_COUNTS_FROM_ROWS } from '../../server/src/postgres/migrations.js';
import type { Sql } from '../../server/src/postgres/database.js';
import {
  automationFacts,
  customerSpokeLast,
  listItem,
  PRIORITY_RANK,
  searchText,
} from '../../server/src/store/ticket-index.js';
import type { StoredTicket } from '../../server/src/store/ticket-store.js';

const DAY = 86_400_000;
const BATCH = 1000;
/** Customers writing in: about four tickets each over the year. */
const CUSTOMERS = 250_000;
const SEED_AGENTS = Array.from({ length: 12 }, (_, i) => `agt_${String(i).padStart(20, 'A')}`);
const TAGS = ['billing', 'delivery', 'refund', 'bug', 'vip', 'wholesale', 'returns', 'warranty'];
const CATEGORIES = [null, 'orders', 'billing', 'technical', 'other'];
const WORDS = (
  'order delivery parcel teapot kettle cup saucer lid handle spout glaze crack broken refund invoice ' +
  'payment card address courier tracking warehouse week tomorrow yesterday please thanks hello sorry ' +
  'price discount voucher account password login email newsletter subscription size colour blue green ' +
  'porcelain ceramic stoneware gift wrap christmas birthday present box label return exchange warranty'
).split(' ');

/** A small, fast, seeded generator: the same seed gives the same million tickets. */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * An id of the server's shape (prefix and 20 letters or digits): the ticket's index and the reply's
 * (unique, so two tickets never share one), then letters from the ticket's own generator.
 */
function id(prefix: string, i: number, r: number, rnd: () => number) {
  let out = `${prefix}_`;
  for (let k = 0, n = i; k < 5; k++, n = Math.floor(n / 62)) out += ALPHABET[n % 62];
  out += ALPHABET[r % 62];
  while (out.length < prefix.length + 21) out += ALPHABET[Math.floor(rnd() * 62)];
  return out;
}

/**
 * The ticket's words by weight, as the server's searchParts (store/search-index.ts) cuts them, for the
 * ASCII-only texts seeded here (where its Unicode word pattern is [a-z0-9]+): a fifth of the cost.
 */
function searchParts(t: StoredTicket) {
  const found = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w && (found.get(w) ?? 0) < weight) found.set(w, weight);
  };
  add(t.subject, 4);
  add(`${t.name} ${t.email} ${t.tags.join(' ')} ${t.id}`, 3);
  for (const text of [t.message, ...t.replies.map((r) => r.message)]) add(text, 1);
  const by: Record<number, string[]> = { 4: [], 3: [], 1: [] };
  for (const [w, weight] of found) by[weight]!.push(w);
  return { subject: by[4]!.join(' '), who: by[3]!.join(' '), text: by[1]!.join(' ') };
}

/** `n` words of the shop's vocabulary, with an order number now and then. */
function text(rnd: () => number, n: number) {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(rnd() < 0.03 ? String(100_000 + Math.floor(rnd() * 900_000)) : WORDS[Math.floor(rnd() * WORDS.length)]!);
  return out.join(' ');
}

/**
 * Ticket `i` of `count`, created over the twelve months before `end` (oldest first, as numbered): most
 * are closed, the last week's are still open, pending or answered; replies, internal notes, tags,
 * assignees and ratings as a shop's support would have them. Messages are 20-200 words.
 */
function seedTicket(i: number, count: number, end: number): StoredTicket {
  const rnd = random(i * 2654435761 + 7);
  const start = end - 365 * DAY;
  const createdMs = start + Math.floor((i / count) * 365 * DAY) + Math.floor(rnd() * 60_000);
  const created = new Date(createdMs).toISOString();
  const ageDays = (end - createdMs) / DAY;
  const roll = rnd();
  // Most of a day's tickets are settled within a week; a few older ones still wait on the customer.
  const status =
    roll < Math.min(0.995, 0.2 + ageDays / 10)
      ? 'closed'
      : ageDays > 10 || roll > 0.85
        ? 'pending'
        : roll > 0.7
          ? 'answered'
          : 'open';
  const customer = Math.floor(rnd() * CUSTOMERS);
  const replyCount = Math.floor(rnd() * rnd() * 9);
  let at = createdMs;
  const replies = Array.from({ length: replyCount }, (_, r) => {
    at += Math.floor(rnd() * 2 * DAY) + 60_000;
    const note = rnd() < 0.15;
    const fromCustomer = !note && r % 2 === 1;
    return {
      id: id('rpl', i, r, rnd),
      message: text(rnd, 10 + Math.floor(rnd() * 120)),
      from_customer: fromCustomer,
      author: fromCustomer ? null : 'Grace Hopper',
      created_at: new Date(Math.min(at, end)).toISOString(),
      attachments: [],
      ...(note ? { internal: true as const } : {}),
    };
  });
  const updated = replies.at(-1)?.created_at ?? created;
  const closed = status === 'closed' ? updated : null;
  const priority = roll < 0.05 ? 'urgent' : roll < 0.2 ? 'high' : roll < 0.9 ? 'normal' : 'low';
  return {
    id: id('tkt', i, 0, rnd),
    number: 1001 + i,
    subject: `Order ${100_000 + (i % 900_000)}: ${text(rnd, 3 + Math.floor(rnd() * 5))}`,
    message: text(rnd, 20 + Math.floor(rnd() * 180)),
    name: `Customer ${customer}`,
    email: `customer${customer}@example.com`,
    status,
    priority: priority as StoredTicket['priority'],
    category: CATEGORIES[Math.floor(rnd() * CATEGORIES.length)]!,
    fields: {},
    page_url: 'https://shop.example/cart',
    agent_id: status === 'open' && rnd() < 0.4 ? null : SEED_AGENTS[Math.floor(rnd() * SEED_AGENTS.length)]!,
    tags: rnd() < 0.4 ? [TAGS[Math.floor(rnd() * TAGS.length)]!] : [],
    close_request: null,
    rating:
      closed && rnd() < 0.25
        ? {
            score: 1 + Math.floor(rnd() * 5),
            comment: rnd() < 0.3 ? 'Quick and kind, thank you' : null,
            rated_at: closed,
          }
        : null,
    replies,
    attachments: [],
    due_at: status === 'closed' ? null : new Date(createdMs + 2 * DAY).toISOString(),
    closed_at: closed,
    created_at: created,
    updated_at: updated,
  } as StoredTicket;
}

/** A time as the report's columns hold it (schema 11): epoch milliseconds. */
const ms = (at: string | null) => (at === null ? null : Date.parse(at));

/** One batch as one INSERT … SELECT FROM unnest(…): the columns the server's store writes (pg-ticket-store.ts). */
async function insertBatch(sql: Sql, tickets: StoredTicket[]) {
  const col = <T>(f: (t: StoredTicket) => T) => tickets.map(f);
  const facts = tickets.map(automationFacts);
  const parts = tickets.map(searchParts);
  await sql`
    INSERT INTO tickets (mode, id, number, data, item, status, category, priority, agent_id, email_lower, tags,
      search, created_at, first_response_at, last_customer_at, escalated, last_activity_at, waiting_us, due_at,
      priority_rank, created_ms, responded_ms, closed_ms, rated_ms, score, search_doc)
    SELECT 'live', id, number, data::jsonb, item::jsonb, status, category, priority, agent_id, email_lower,
      CASE WHEN tag = '' THEN '{}'::text[] ELSE ARRAY[tag] END, search, created_at, first_response_at,
      last_customer_at, '{}', last_activity_at, waiting_us, due_at, priority_rank, created_ms, responded_ms,
      closed_ms, rated_ms, score,
      setweight(to_tsvector('simple', subject_words), 'A') || setweight(to_tsvector('simple', who), 'B')
        || setweight(to_tsvector('simple', words), 'D')
    FROM unnest(${col((t) => t.id)}::text[], ${col((t) => t.number)}::int[], ${col((t) => JSON.stringify(t))}::text[],
      ${col((t) => JSON.stringify(listItem(t)))}::text[], ${col((t) => t.status)}::text[], ${col((t) => t.category)}::text[],
      ${col((t) => t.priority)}::text[], ${col((t) => t.agent_id)}::text[], ${col((t) => t.email.toLowerCase())}::text[],
      ${col((t) => t.tags[0] ?? '')}::text[], ${col(searchText)}::text[], ${col((t) => t.created_at)}::text[],
      ${facts.map((f) => f.firstResponseAt)}::text[], ${facts.map((f) => f.lastCustomerAt)}::text[],
      ${col((t) => listItem(t).last_activity_at)}::text[], ${col((t) => (customerSpokeLast(t) ? 't' : 'f'))}::text[]::bool[], ${col((t) => t.due_at)}::text[],
      ${col((t) => PRIORITY_RANK[t.priority] ?? 0)}::smallint[], ${parts.map((p) => p.subject)}::text[],
      ${parts.map((p) => p.who)}::text[], ${parts.map((p) => p.text)}::text[],
      ${col((t) => Date.parse(t.created_at))}::bigint[], ${facts.map((f) => ms(f.firstResponseAt))}::bigint[],
      ${col((t) => ms(t.closed_at))}::bigint[], ${col((t) => ms(t.rating?.rated_at ?? null))}::bigint[],
      ${col((t) => t.rating?.score ?? null)}::smallint[])
      AS r (id, number, data, item, status, category, priority, agent_id, email_lower, tag, search, created_at,
        first_response_at, last_customer_at, last_activity_at, waiting_us, due_at, priority_rank, subject_words, who,
        words, created_ms, responded_ms, closed_ms, rated_ms, score)`;
}

/**
 * Puts `count` live tickets into the (empty) database at `url`, migrated to the server's newest schema,
 * in batches of 1,000 rows over two connections, ending at `end` (ms). Returns the seconds it took.
 */
export async function seedPostgres(url: string, count: number, end: number, say: (line: string) => void) {
  const sql = postgres(url, { max: 2, onnotice: () => {}, connection: { synchronous_commit: 'off' } });
  const t0 = performance.now();
  try {
    await migrate(sql as unknown as Sql);
    // Loading into a table without its indexes and building them after is several times faster than
    // keeping ten indexes (one of them full-text) up to date row by row; the definitions are the schema's own.
    const indexes = await sql<{ name: string; def: string }[]>`
      SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE tablename = 'tickets' AND indexname <> 'tickets_pkey'`;
    for (const i of indexes) await sql.unsafe(`DROP INDEX ${i.name}`);
    // The views' numbers (and the tickets per status, schema 13) are counted once at the end instead of
    // appended by the trigger row by row, as `ticketing migrate --to` does.
    await sql`ALTER TABLE tickets DISABLE TRIGGER tickets_view_counted`;
    let next = 0;
    const worker = async () => {
      for (;;) {
        const from = next;
        if (from >= count) return;
        next = Math.min(count, from + BATCH);
        const batch: StoredTicket[] = [];
        for (let i = from; i < next; i++) batch.push(seedTicket(i, count, end));
        await insertBatch(sql as unknown as Sql, batch);
        if (next % 50_000 < BATCH)
          say(`seeded ${next} of ${count} tickets, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
    };
    await Promise.all([worker(), worker()]);
    const t1 = performance.now();
    await sql`SET maintenance_work_mem = '512MB'`;
    for (const i of indexes) await sql.unsafe(i.def);
    say(`built ${indexes.length} indexes in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
    await sql.unsafe(VIEW_COUNTS_FROM_ROWS);
    await sql`ALTER TABLE tickets ENABLE TRIGGER tickets_view_counted`;
    await sql`SELECT setval(${numberSequence('live')}::regclass, ${1000 + count})`;
    await sql`VACUUM ANALYZE tickets`;
  } finally {
    await sql.end();
  }
  return (performance.now() - t0) / 1000;
}
