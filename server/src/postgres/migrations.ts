import type postgres from 'postgres';
import type { Sql } from './database.js';
import { StartupError } from '../store/startup-error.js';

/**
 * The class of the advisory locks that guard each mode's ticket_counts rows (schema 8): beside
 * leadership's (7_341_020, postgres/pg-leadership.ts), never equal to it.
 */
const COUNTS_LOCK = 7_341_021;

/**
 * The schema, as numbered steps. A step is never changed once released: a change is a new step. Each
 * runs in the transaction that records it, so a database is at one version or the next, never between.
 *
 * Times are the ISO strings the JSON files hold (text in the "C" collation sorts them as the JSON
 * store's index does), so a move between the stores gives back every value as it was.
 */
/**
 * The views' numbers (ticket_view_counts, schema 12) made from the tickets' rows as they are: by that
 * version's migration, and by `migrate --to` after its copy (the counting trigger is off meanwhile).
 */
export const VIEW_COUNTS_FROM_ROWS = `
  INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, n)
    SELECT mode, status, agent_id, coalesce(waiting_us, false), count(*) FROM tickets
    GROUP BY mode, status, agent_id, coalesce(waiting_us, false);
  INSERT INTO ticket_view_counts (mode, status, mentioned, n)
    SELECT mode, status, m, count(*) FROM tickets, LATERAL (SELECT DISTINCT unnest(mentions)) AS x (m)
    WHERE mentions IS NOT NULL GROUP BY mode, status, m;
  INSERT INTO ticket_view_counts (mode, status, due_day, n)
    SELECT mode, status, left(due_at, 10), count(*) FROM tickets WHERE due_at IS NOT NULL
    GROUP BY mode, status, left(due_at, 10);
`;

/**
 * A step of the schema. `rewrites`: the tables of which it writes a new version of every row (an
 * UPDATE of them all), leaving as many dead row versions behind: the server vacuums them after it
 * (rewrittenSinceVacuum, postgres/vacuum-after-migration.ts).
 */
interface Migration {
  version: number;
  name: string;
  sql: string;
  rewrites?: string[];
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'tickets, files, idempotency keys, configuration, keys, logs, outbox, rate limits',
    sql: `
      CREATE TABLE tickets (
        mode text NOT NULL,
        id text COLLATE "C" NOT NULL,
        data jsonb NOT NULL,
        item jsonb NOT NULL,
        status text NOT NULL,
        category text,
        priority text NOT NULL,
        agent_id text,
        email_lower text NOT NULL,
        tags text[] NOT NULL,
        search text NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        first_response_at text,
        last_customer_at text NOT NULL,
        escalated text[] NOT NULL,
        PRIMARY KEY (mode, id)
      );
      CREATE INDEX tickets_newest ON tickets (mode, created_at DESC, id DESC);
      CREATE INDEX tickets_status_newest ON tickets (mode, status, created_at DESC, id DESC);
      CREATE INDEX tickets_email ON tickets (mode, email_lower);

      CREATE TABLE ticket_files (
        mode text NOT NULL,
        ticket_id text NOT NULL,
        id text NOT NULL,
        data bytea NOT NULL CHECK (octet_length(data) <= 5 * 1024 * 1024),
        PRIMARY KEY (mode, ticket_id, id),
        FOREIGN KEY (mode, ticket_id) REFERENCES tickets ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
      );

      CREATE TABLE idempotency_keys (
        mode text NOT NULL,
        key text NOT NULL,
        ticket_id text NOT NULL,
        hash text NOT NULL,
        at text COLLATE "C" NOT NULL,
        PRIMARY KEY (mode, key),
        FOREIGN KEY (mode, ticket_id) REFERENCES tickets ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
      );
      CREATE INDEX idempotency_keys_at ON idempotency_keys (at);

      CREATE TABLE config (
        id int PRIMARY KEY CHECK (id = 1),
        data jsonb NOT NULL,
        version bigint NOT NULL
      );

      CREATE TABLE api_keys (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        hash text NOT NULL UNIQUE,
        data jsonb NOT NULL,
        revoked boolean NOT NULL
      );

      CREATE TABLE logs (
        seq bigserial PRIMARY KEY,
        log text NOT NULL,
        entry jsonb NOT NULL
      );
      CREATE INDEX logs_newest ON logs (log, seq DESC);

      CREATE TABLE outbox_jobs (
        id text PRIMARY KEY,
        job jsonb NOT NULL,
        next_attempt_at text COLLATE "C" NOT NULL,
        claimed_until text COLLATE "C"
      );
      CREATE INDEX outbox_jobs_due ON outbox_jobs (next_attempt_at);

      CREATE TABLE rate_limits (
        bucket text PRIMARY KEY,
        count bigint NOT NULL,
        reset_at bigint NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "agents' sessions and failed sign-ins",
    sql: `
      CREATE TABLE agent_sessions (
        hash text PRIMARY KEY,
        agent_id text NOT NULL,
        password text NOT NULL,
        created_at bigint NOT NULL,
        last_seen_at bigint NOT NULL
      );
      CREATE INDEX agent_sessions_agent ON agent_sessions (agent_id);

      CREATE TABLE sign_in_failures (
        key text NOT NULL,
        at bigint NOT NULL
      );
      CREATE INDEX sign_in_failures_key ON sign_in_failures (key, at);
      CREATE INDEX sign_in_failures_at ON sign_in_failures (at);
      `,
  },
  {
    version: 3,
    name: 'the inbox: last activity, who waits, deadline and priority rank of tickets, with their indexes',
    // Rows written before this version get the new columns (and a search text with the replies) from the ticket
    // itself when the server starts (PgTicketStore.refreshRows): SQL cannot derive them well.
    sql: `
      ALTER TABLE tickets
        ADD COLUMN last_activity_at text COLLATE "C",
        ADD COLUMN waiting_us boolean,
        ADD COLUMN due_at text COLLATE "C",
        ADD COLUMN priority_rank smallint;
      CREATE INDEX tickets_activity ON tickets (mode, last_activity_at DESC, id DESC);
      CREATE INDEX tickets_due ON tickets (mode, due_at, id) WHERE due_at IS NOT NULL;
      CREATE INDEX tickets_waiting ON tickets (mode, status) WHERE waiting_us;
      CREATE INDEX tickets_agent ON tickets (mode, agent_id, status);
      CREATE INDEX tickets_stale ON tickets (mode, id) WHERE last_activity_at IS NULL;
    `,
  },
  {
    version: 4,
    name: 'WebAuthn challenges for passkeys, shared by every instance',
    sql: `
      CREATE TABLE webauthn_challenges (
        challenge text PRIMARY KEY,
        agent_id text,
        expires_at bigint NOT NULL
      );
      CREATE INDEX webauthn_challenges_expires ON webauthn_challenges (expires_at);
    `,
  },
  {
    version: 5,
    name: 'ticket numbers: given per mode from 1001, existing tickets oldest first',
    rewrites: ['tickets'],
    // A counter row per mode, raised in the create's transaction (PgTicketStore.create): its lock
    // orders concurrent creates across instances, and a create that rolls back gives its number back,
    // so numbers have no gaps (a sequence would leave one per failed create).
    sql: `
      ALTER TABLE tickets ADD COLUMN number int;
      UPDATE tickets t SET number = n.number,
          data = jsonb_set(t.data, '{number}', to_jsonb(n.number)),
          item = jsonb_set(t.item, '{number}', to_jsonb(n.number))
        FROM (SELECT mode, id, 1000 + row_number() OVER (PARTITION BY mode ORDER BY created_at, id) AS number
              FROM tickets) n
        WHERE t.mode = n.mode AND t.id = n.id;
      ALTER TABLE tickets ALTER COLUMN number SET NOT NULL;
      CREATE UNIQUE INDEX tickets_number ON tickets (mode, number);
      CREATE TABLE ticket_numbers (mode text PRIMARY KEY, last int NOT NULL);
      INSERT INTO ticket_numbers (mode, last) SELECT mode, max(number) FROM tickets GROUP BY mode;
    `,
  },
  {
    version: 6,
    name: 'search: a full-text document per ticket, with its GIN index',
    // Filled in from the ticket by the server (PgTicketStore.refreshRows): the words are cut as the
    // JSON store's search index cuts them (store/search-index.ts), which SQL cannot do alike.
    sql: `
      ALTER TABLE tickets ADD COLUMN search_doc tsvector;
      CREATE INDEX tickets_search ON tickets USING GIN (search_doc);
    `,
  },
  {
    version: 7,
    name: 'a million tickets: tickets per status kept by a trigger, and an index of rows still to be made searchable',
    // /counts and a list's total read the per-status numbers instead of counting every ticket (a
    // count over a million rows takes a good part of a second). The trigger adds and takes away in the
    // writing transaction, so the numbers are what that transaction sees; its rows change in one order
    // (mode, status), so two transactions moving tickets between two statuses in opposite directions
    // wait for each other instead of deadlocking. The partial index lets the start-up's look for rows
    // without a search document (PgTicketStore.refreshRows) find none without reading every row.
    sql: `
      CREATE TABLE ticket_counts (
        mode text NOT NULL,
        status text NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (mode, status)
      );
      -- Writers wait from here to the commit: an instance of the previous version still writing during a
      -- rolling upgrade must not add a ticket between the count and the trigger (it would never be counted).
      LOCK TABLE tickets IN SHARE ROW EXCLUSIVE MODE;
      INSERT INTO ticket_counts (mode, status, n) SELECT mode, status, count(*) FROM tickets GROUP BY mode, status;
      CREATE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.mode = NEW.mode AND OLD.status = NEW.status THEN
          RETURN NULL;
        END IF;
        INSERT INTO ticket_counts AS c (mode, status, n)
          SELECT d.mode, d.status, sum(d.n) FROM (
            SELECT NEW.mode, NEW.status, 1 WHERE TG_OP <> 'DELETE'
            UNION ALL
            SELECT OLD.mode, OLD.status, -1 WHERE TG_OP <> 'INSERT'
          ) AS d (mode, status, n)
          GROUP BY d.mode, d.status ORDER BY d.mode, d.status
        ON CONFLICT (mode, status) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$;
      CREATE TRIGGER tickets_counted AFTER INSERT OR DELETE OR UPDATE OF mode, status ON tickets
        FOR EACH ROW EXECUTE FUNCTION ticket_counts_follow();
      CREATE INDEX tickets_unsearchable ON tickets (mode, id) WHERE search_doc IS NULL;
    `,
  },
  {
    version: 8,
    name: 'tickets per status: one lock per mode before the counters, so crossing writes wait instead of deadlocking',
    // Issue 32. A statement takes its counter rows in order, but a transaction of several statements
    // (/bulk, /merge) took them statement by statement: one moving A open->pending then B
    // closed->pending, another C closed->open then D pending->open, each held a row the other wanted
    // next, and PostgreSQL aborted one (40P01): a 500. Now every transaction takes one lock per mode
    // (an advisory transaction lock) before it touches that mode's counters, so whoever holds a counter
    // row holds that lock, and no one waits for a counter row while holding another. A single-ticket
    // write takes it in its one statement as before it took its rows: no new wait order.
    //
    // Why not retry the transaction on 40P01 instead: a handler's work is not only its statements.
    // /password-reset sends its mail once the answer is written, several handlers hold files read from
    // the request; a retry would have to prove none of that repeats, for every route, now and later.
    // The cost: writers that change counts of one mode (creates, status changes) queue from that
    // statement to their commit; creates already did, on the (mode, open) row they all add to.
    sql: `
      CREATE OR REPLACE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.mode = NEW.mode AND OLD.status = NEW.status THEN
          RETURN NULL;
        END IF;
        -- Both modes' locks, in one order, when a row changes mode (no route does; a copy might).
        PERFORM pg_advisory_xact_lock(${COUNTS_LOCK}, hashtext(m))
          FROM (SELECT NEW.mode WHERE TG_OP <> 'DELETE' UNION SELECT OLD.mode WHERE TG_OP <> 'INSERT') AS d (m)
          ORDER BY m;
        INSERT INTO ticket_counts AS c (mode, status, n)
          SELECT d.mode, d.status, sum(d.n) FROM (
            SELECT NEW.mode, NEW.status, 1 WHERE TG_OP <> 'DELETE'
            UNION ALL
            SELECT OLD.mode, OLD.status, -1 WHERE TG_OP <> 'INSERT'
          ) AS d (mode, status, n)
          GROUP BY d.mode, d.status ORDER BY d.mode, d.status
        ON CONFLICT (mode, status) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$;
    `,
  },
  {
    version: 9,
    name: 'logs by time: the popularity window, the views past it and retention find their rows by index',
    // The kb_feedback tally (kb/popular.ts) and the prunes (retention/) select a log's rows by `at`;
    // without this index each read every row of the log.
    sql: `CREATE INDEX logs_at ON logs (log, (entry->>'at'));`,
  },
  {
    version: 10,
    name: "a million tickets: the views' columns in an index, so /counts and the views' totals read no ticket row",
    // Issue 32. /counts and needs_reply's total read each ticket not closed from the table (13,665 rows
    // over 5,433 pages at 1M tickets, and the snooze and mentions out of each row's jsonb): 0.5-1.7 s.
    // With every column those views test in one index, PostgreSQL answers them by an index-only scan of
    // the statuses not closed. The index cannot be partial on "not closed": which statuses are closed
    // is configuration (an admin may change it), so it holds every ticket, a few bytes each.
    // The snooze and the mentions get columns of their own, filled here from the list view that held
    // them (one pass over the table: 12 s at a million tickets on a loaded machine). The mentions view's
    // and snoozed views' pages find their few tickets by indexes of their own, not by reading the newest
    // tickets until enough match (6 s for the snoozed view when none is snoozed).
    sql: `
      ALTER TABLE tickets ADD COLUMN snoozed_until text COLLATE "C", ADD COLUMN mentions text[];
      UPDATE tickets SET snoozed_until = item->>'snoozed_until',
          mentions = CASE WHEN jsonb_typeof(item->'mentions') = 'array'
            THEN ARRAY(SELECT jsonb_array_elements_text(item->'mentions')) END
        WHERE item->>'snoozed_until' IS NOT NULL OR item ? 'mentions';
      CREATE INDEX tickets_views ON tickets (mode, status)
        INCLUDE (waiting_us, agent_id, due_at, snoozed_until, mentions);
      CREATE INDEX tickets_mentions ON tickets USING GIN (mentions) WHERE mentions IS NOT NULL;
      CREATE INDEX tickets_snoozed ON tickets (mode, snoozed_until) WHERE snoozed_until IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: "a million tickets: a report's times and score in columns of their own, and an index holding what a report reads",
    rewrites: ['tickets'],
    // Issue 32. A month's report at 1M tickets read 88,000 rows' list views (TOASTed jsonb) for closed_at
    // and the rating, and cast each row's ISO times to timestamps: 1.7-3.5 s. The times a report sums are
    // now columns as epoch milliseconds (what JavaScript's Date.parse gives, so every sum and comparison
    // is buildReport's exactly), filled here from the columns and list view that held them (one pass over
    // the table), and the index holds them beside the columns that choose a report's rows (the statuses
    // not closed, the others by last activity) and its filters: a month is read from the index alone.
    // Status comes first, so the index is no cheaper than the views' own for a look by mode alone; tags
    // are left out (a tag's report reads its rows too): arrays would make every entry larger. At a
    // million tickets the pass took 19 minutes on a busy machine (every row's new version goes into
    // every index) and the index is 165 MB.
    sql: `
      ALTER TABLE tickets ADD COLUMN created_ms bigint, ADD COLUMN responded_ms bigint, ADD COLUMN closed_ms bigint,
        ADD COLUMN rated_ms bigint, ADD COLUMN score smallint;
      UPDATE tickets SET created_ms = (extract(epoch FROM created_at::timestamptz) * 1000)::bigint,
        responded_ms = (extract(epoch FROM first_response_at::timestamptz) * 1000)::bigint,
        (closed_ms, rated_ms, score) = (
          SELECT (extract(epoch FROM j.closed_at::timestamptz) * 1000)::bigint,
            (extract(epoch FROM (j.rating->>'rated_at')::timestamptz) * 1000)::bigint, (j.rating->>'score')::smallint
          FROM jsonb_to_record(item) AS j (closed_at text, rating jsonb));
      CREATE INDEX tickets_report ON tickets (status, mode, last_activity_at)
        INCLUDE (category, agent_id, priority, created_ms, responded_ms, closed_ms, rated_ms, score, id);
    `,
  },
  {
    version: 12,
    name: "a million tickets: the views' numbers kept by a trigger, per status and agent, mention and day due",
    // Issue 32. /counts and needs_reply's total still read each ticket not closed from the views' index
    // (13,665 entries at 1M tickets: 2-3 ms of database time a request, and sixteen agents polling
    // /counts queue behind each other on two cores). Now the writing transaction adds to the numbers
    // what its row changes (as ticket_counts of version 7), in rows of three kinds:
    //   - per status, agent and whether the customer waits (`waiting` set): needs_reply, unassigned, mine;
    //   - per status and agent mentioned (`mentioned` set): mentions;
    //   - per status and day (UTC) of the deadline (`due_day` set): overdue is the days before today's
    //     plus today's deadlines already past, counted from their rows (tickets_due_status: a day's).
    // Snoozes end with time: the snoozed tickets, few, are still counted from their rows.
    //
    // The trigger only appends (+1 for the new row, -1 for the old): no counter row is updated, so
    // writers take no lock here and never wait for each other (a reply changes who waits, and replies
    // on every instance would otherwise queue on one counter row, as creates do on ticket_numbers).
    // A reader sums the rows of its snapshot, which hold exactly the tickets of that snapshot; the
    // store folds the rows into their sums now and then (PgTicketStore.compactViewCounts).
    sql: `
      CREATE TABLE ticket_view_counts (
        mode text NOT NULL,
        status text NOT NULL,
        agent_id text,
        waiting boolean,
        mentioned text,
        due_day text COLLATE "C",
        n bigint NOT NULL
      );
      CREATE INDEX tickets_due_status ON tickets (mode, due_at) INCLUDE (status) WHERE due_at IS NOT NULL;
      -- Writers wait from here to the commit (see version 7).
      LOCK TABLE tickets IN SHARE ROW EXCLUSIVE MODE;
      ${VIEW_COUNTS_FROM_ROWS}
      CREATE FUNCTION ticket_view_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.mode = NEW.mode AND OLD.status = NEW.status
            AND OLD.agent_id IS NOT DISTINCT FROM NEW.agent_id
            AND coalesce(OLD.waiting_us, false) = coalesce(NEW.waiting_us, false)
            AND OLD.mentions IS NOT DISTINCT FROM NEW.mentions
            AND left(OLD.due_at, 10) IS NOT DISTINCT FROM left(NEW.due_at, 10) THEN
          RETURN NULL;
        END IF;
        -- The row as it is (+1) and as it was (-1), then the rows of the three kinds each adds to.
        WITH r (mode, status, agent_id, waiting, mentions, due_at, n) AS (
          SELECT NEW.mode, NEW.status, NEW.agent_id, coalesce(NEW.waiting_us, false), NEW.mentions, NEW.due_at, 1
            WHERE TG_OP <> 'DELETE'
          UNION ALL
          SELECT OLD.mode, OLD.status, OLD.agent_id, coalesce(OLD.waiting_us, false), OLD.mentions, OLD.due_at, -1
            WHERE TG_OP <> 'INSERT'
        )
        INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, mentioned, due_day, n)
          SELECT d.mode, d.status, d.agent_id, d.waiting, d.mentioned, d.due_day, sum(d.n) FROM (
            SELECT mode, status, agent_id, waiting, NULL::text, NULL::text, n FROM r
            UNION ALL
            SELECT mode, status, NULL, NULL, m, NULL, n FROM r, LATERAL (SELECT DISTINCT unnest(r.mentions)) AS x (m)
            UNION ALL
            SELECT mode, status, NULL, NULL, NULL, left(due_at, 10), n FROM r WHERE due_at IS NOT NULL
          ) AS d (mode, status, agent_id, waiting, mentioned, due_day, n)
          GROUP BY d.mode, d.status, d.agent_id, d.waiting, d.mentioned, d.due_day
          HAVING sum(d.n) <> 0;
        RETURN NULL;
      END $$;
      CREATE TRIGGER tickets_view_counted
        AFTER INSERT OR DELETE OR UPDATE OF mode, status, agent_id, waiting_us, mentions, due_at
        ON tickets FOR EACH ROW EXECUTE FUNCTION ticket_view_counts_follow();
    `,
  },
  {
    version: 13,
    name: "creates wait for no one: ticket numbers from a sequence per mode, tickets per status from the views' numbers",
    // Issue 32. Two rows made creates on every instance take turns: version 5's number counter, locked
    // from a create's number to its commit (across a round trip to its server), and the (mode, status)
    // row of ticket_counts behind version 8's per-mode lock, held from the ticket's row to the commit.
    // At 16 concurrent creates PostgreSQL ran 0.1x the JSON store's creates, most of them waiting.
    //   - A sequence gives numbers without a lock (the project's API decisions named a sequence for
    //     PostgreSQL; version 5 chose the counter to leave no gaps): numbers stay unique, in creation
    //     order and never given again; a create that fails leaves its number unused (the counter gave
    //     it back).
    //   - The tickets per status are the sums of ticket_view_counts' rows of the first kind (version 12:
    //     every ticket adds one, `waiting` set), which writers append without a lock; ticket_counts,
    //     its trigger and version 8's lock go.
    //   - The views' numbers' trigger (version 12) appends a write's rows of the first kind as they are
    //     when neither side has a mention or a deadline, as a create has neither: its general statement
    //     took 0.2 ms of a create's 0.33 ms INSERT (EXPLAIN ANALYZE).
    // An instance of an earlier version still running finds neither: its creates, lists, counts,
    // reports and search fail (500) until it is restarted on this version, rather than give a number
    // twice or miscount (docs/deploy.md: stop the older instances first).
    sql: `
      CREATE SEQUENCE ticket_numbers_live AS int MINVALUE 1 START 1001;
      CREATE SEQUENCE ticket_numbers_test AS int MINVALUE 1 START 1001;
      -- A create of the earlier version that holds the counter's row commits (or not) before this reads it.
      LOCK TABLE ticket_numbers IN EXCLUSIVE MODE;
      SELECT setval('ticket_numbers_' || c.mode,
          GREATEST(c.last, (SELECT coalesce(max(t.number), 0) FROM tickets t WHERE t.mode = c.mode)))
        FROM ticket_numbers c;
      DROP TABLE ticket_numbers;
      CREATE OR REPLACE FUNCTION ticket_view_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.mode = NEW.mode AND OLD.status = NEW.status
            AND OLD.agent_id IS NOT DISTINCT FROM NEW.agent_id
            AND coalesce(OLD.waiting_us, false) = coalesce(NEW.waiting_us, false)
            AND OLD.mentions IS NOT DISTINCT FROM NEW.mentions
            AND left(OLD.due_at, 10) IS NOT DISTINCT FROM left(NEW.due_at, 10) THEN
          RETURN NULL;
        END IF;
        -- Most writes (every create) have no mention and no deadline on either side: only rows of the
        -- first kind change, appended as they are (the general statement below took 0.2 ms, twice the
        -- INSERT of the ticket's row itself).
        IF (TG_OP = 'DELETE' OR (NEW.mentions IS NULL AND NEW.due_at IS NULL))
            AND (TG_OP = 'INSERT' OR (OLD.mentions IS NULL AND OLD.due_at IS NULL)) THEN
          IF TG_OP <> 'DELETE' THEN
            INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, n)
              VALUES (NEW.mode, NEW.status, NEW.agent_id, coalesce(NEW.waiting_us, false), 1);
          END IF;
          IF TG_OP <> 'INSERT' THEN
            INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, n)
              VALUES (OLD.mode, OLD.status, OLD.agent_id, coalesce(OLD.waiting_us, false), -1);
          END IF;
          RETURN NULL;
        END IF;
        -- The row as it is (+1) and as it was (-1), then the rows of the three kinds each adds to.
        WITH r (mode, status, agent_id, waiting, mentions, due_at, n) AS (
          SELECT NEW.mode, NEW.status, NEW.agent_id, coalesce(NEW.waiting_us, false), NEW.mentions, NEW.due_at, 1
            WHERE TG_OP <> 'DELETE'
          UNION ALL
          SELECT OLD.mode, OLD.status, OLD.agent_id, coalesce(OLD.waiting_us, false), OLD.mentions, OLD.due_at, -1
            WHERE TG_OP <> 'INSERT'
        )
        INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, mentioned, due_day, n)
          SELECT d.mode, d.status, d.agent_id, d.waiting, d.mentioned, d.due_day, sum(d.n) FROM (
            SELECT mode, status, agent_id, waiting, NULL::text, NULL::text, n FROM r
            UNION ALL
            SELECT mode, status, NULL, NULL, m, NULL, n FROM r, LATERAL (SELECT DISTINCT unnest(r.mentions)) AS x (m)
            UNION ALL
            SELECT mode, status, NULL, NULL, NULL, left(due_at, 10), n FROM r WHERE due_at IS NOT NULL
          ) AS d (mode, status, agent_id, waiting, mentioned, due_day, n)
          GROUP BY d.mode, d.status, d.agent_id, d.waiting, d.mentioned, d.due_day
          HAVING sum(d.n) <> 0;
        RETURN NULL;
      END $$;
      DROP TRIGGER tickets_counted ON tickets;
      DROP FUNCTION ticket_counts_follow();
      DROP TABLE ticket_counts;
    `,
  },
];

/** The sequence of a mode's ticket numbers (schema version 13: one per mode of model/keys.ts). */
export const numberSequence = (mode: 'live' | 'test') => `ticket_numbers_${mode}`;

/** Any 64-bit number that names "this schema's migrations" to pg_advisory_xact_lock. */
const MIGRATION_LOCK = 7_341_020_180_001;

/**
 * Brings the schema to the newest version, under an advisory lock: instances starting together
 * migrate once, the others wait and find it done. A database a newer version migrated is refused.
 */
export async function migrate(sql: Sql): Promise<{ from: number; to: number; vacuumDue: string[] }> {
  return sql.begin(async (tx) => {
    await tx`SET LOCAL statement_timeout = 0`;
    await tx`SELECT pg_advisory_xact_lock(${String(MIGRATION_LOCK)}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
      version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    const rows = await tx<{ version: number }[]>`SELECT version FROM schema_migrations`;
    const done = new Set(rows.map((r) => r.version));
    const from = Math.max(0, ...done);
    const newest = MIGRATIONS.at(-1)!.version;
    if (from > newest) {
      throw new StartupError(
        `The database is at schema version ${from}; this server knows versions up to ${newest}.`,
        'It was migrated by a newer version of the server: run that version, or restore a backup taken before.',
      );
    }
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name) VALUES (${m.version}, ${m.name})`;
    }
    return { from, to: newest, vacuumDue: await rewrittenSinceVacuum(tx) };
  });
}

/**
 * The tables a step of the schema rewrote (every row) since PostgreSQL last vacuumed them, by hand or
 * by autovacuum (pg_stat_user_tables): until then each holds a dead version of every row, which
 * index-only scans must check in the table (a month's report at a million tickets: 1.3 s instead of
 * 0.25 s). Steps applied when the database was made (in the same run as version 1: one transaction,
 * one now()) rewrote empty tables and are not counted. Read from the database, not remembered by the
 * process that migrated: `ticketing keys` may have migrated it, or the migrating instance may have
 * stopped before its vacuum ended; the next start finds the table still due.
 */
export async function rewrittenSinceVacuum(sql: Sql | postgres.TransactionSql): Promise<string[]> {
  const steps = MIGRATIONS.flatMap((m) => (m.rewrites ?? []).map((table) => ({ version: m.version, table })));
  const rows = await sql<{ table: string }[]>`
    SELECT DISTINCT r.t AS table
    FROM unnest(${steps.map((s) => s.version)}::int[], ${steps.map((s) => s.table)}::text[]) AS r (version, t),
      schema_migrations m, schema_migrations first, pg_stat_user_tables st
    WHERE m.version = r.version AND first.version = 1
      AND st.relname = r.t AND st.schemaname = current_schema()
      AND m.applied_at > first.applied_at
      AND m.applied_at > coalesce(greatest(st.last_vacuum, st.last_autovacuum), '-infinity')`;
  return rows.map((r) => r.table);
}
