import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { pgRelay } from '../test-support/pg-relay.js';
import { openTestDatabase } from '../test-support/test-database.js';

// A create's writes go to PostgreSQL as one batch: BEGIN, the row, the audit entry, the NOTIFY and
// COMMIT in one round trip, and still all or nothing. This file runs in the `postgres` test project only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** An instance whose every statement passes through the relay (the database made by a first one). */
async function relayedInstance() {
  const first = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
  cleanup.push(() => first.close());
  const relay = await pgRelay(first.databaseUrl!);
  cleanup.push(() => new Promise((ok) => relay.server.close(() => ok())));
  const s: TestServer = await startServer({
    env: { TICKETING_SCHEDULER_SECONDS: '0' },
    keys: first.keys,
    databaseUrl: relay.url,
  });
  cleanup.push(() => s.close({ keepData: true }));
  return { s, turns: relay.turns };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a create on PostgreSQL', () => {
  it('sends its writes in one round trip', async () => {
    const { s, turns } = await relayedInstance();
    // The driver prepares each statement once per connection (a round trip of its own): warm the pool.
    for (let i = 0; i < 15; i++) await createTicket(s, {}, s.keys.sk);
    const counts: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = turns();
      const res = await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput({ subject: `batch ${i}` }) });
      expect(res.status).toBe(201);
      counts.push(turns() - before);
    }
    // The key throttle's read before the unit; BEGIN with the ticket-number counter, whose answer is
    // awaited (the 201 carries the number); then INSERT ticket, INSERT audit entry, NOTIFY and COMMIT
    // sent together without waiting (the driver writes over 1 KB at once and the rest a moment later,
    // which the relay may see answered in between): 3 or 4. Each awaited in turn (before numbers), 6.
    expect(median(counts)).toBeLessThanOrEqual(4);
    const list = await s.call('GET', '/list?q=batch');
    expect(list.body.total).toBe(9);
  });

  it('waits for no other create: one not yet committed on another instance holds up none (schema 13)', async () => {
    const s = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close());
    const first = await createTicket(s, { subject: 'first' });
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    // Another instance's create, between its row and its COMMIT: its number taken, its row written (the
    // counting triggers ran), its NOTIFY queued. Before schema 13 every create waited for it (the
    // number counter's row and the per-status counters' lock) until it ended.
    const other = await sql.reserve();
    cleanup.push(async () => other.release());
    await other`BEGIN`;
    await other`
      INSERT INTO tickets
      SELECT r.* FROM tickets t, LATERAL jsonb_populate_record(t,
        jsonb_build_object('id', 'tkt_heldOpenByAnotherOne', 'number', nextval('ticket_numbers_live'))) r
      WHERE t.id = ${first.id}`;
    await other`SELECT pg_notify('ticketing_live', '{}')`;
    const began = performance.now();
    const res = await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput({ subject: 'not held up' }) });
    expect(res.status).toBe(201);
    expect(performance.now() - began).toBeLessThan(3000);
    // Its number follows the one the open transaction took; that one, rolled back, stays unused.
    expect(res.body.number).toBe(first.number + 2);
    await other`ROLLBACK`;
    expect((await createTicket(s)).number).toBe(first.number + 3);
    const counts = (await s.call('GET', '/counts')).body;
    expect(counts.views.all).toBe(3);
  });

  it('stores nothing, and says so, when a statement of the batch fails', async () => {
    const { s } = await relayedInstance();
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    // The database refuses one ticket's row: the failure comes back only with the COMMIT.
    await sql.unsafe(`
      CREATE FUNCTION refuse_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.data->>'subject' = 'refused' THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_ticket BEFORE INSERT ON tickets FOR EACH ROW EXECUTE FUNCTION refuse_ticket();`);
    const auditBefore = (await sql`SELECT count(*)::int AS n FROM logs`)[0]!.n as number;
    const refused = await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput({ subject: 'refused' }) });
    expect(refused.status).toBe(500);
    expect(refused.body.error.code).toBe('internal_error');
    expect((await sql`SELECT count(*)::int AS n FROM tickets`)[0]!.n).toBe(0);
    expect((await sql`SELECT count(*)::int AS n FROM logs`)[0]!.n).toBe(auditBefore);
    // The connection went back to the pool whole: the next creates are stored.
    for (let i = 0; i < 3; i++) await createTicket(s, { subject: `after ${i}` }, s.keys.sk);
    expect((await s.call('GET', '/list')).body.total).toBe(3);
  });

  it('commits without waiting for the disk while its NOTIFY holds the cluster-wide lock, and answers once its commit is flushed', async () => {
    const first = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => first.close());
    const sql = openTestDatabase(first.databaseUrl!);
    cleanup.push(() => sql.end());
    // The test cluster commits without waiting for the disk; this database asks for what a production
    // one does, for the connections of the instance started below.
    const database = new URL(first.databaseUrl!).pathname.slice(1);
    await sql.unsafe(`ALTER DATABASE "${database}" SET synchronous_commit = on`);
    // What each ticket's transaction commits with, and where the WAL was right before its commit (a
    // deferred trigger runs at COMMIT).
    await sql.unsafe(`
      CREATE TABLE create_commits (id text, setting text, lsn pg_lsn);
      CREATE FUNCTION note_create() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO create_commits VALUES (NEW.id, current_setting('synchronous_commit'), pg_current_wal_insert_lsn());
        RETURN NEW;
      END $$;
      CREATE CONSTRAINT TRIGGER note_create AFTER INSERT ON tickets DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION note_create();`);
    const s = await startServer({
      env: { TICKETING_SCHEDULER_SECONDS: '0' },
      keys: first.keys,
      databaseUrl: first.databaseUrl!,
    });
    cleanup.push(() => s.close({ keepData: true }));
    for (let i = 0; i < 10; i++) {
      const t = await createTicket(s, { subject: `flushed ${i}` });
      // At the 201 the WAL is on disk past the ticket's commit (which comes after its row).
      const [row] = await sql<{ setting: string; flushed: boolean }[]>`
        SELECT setting, pg_current_wal_flush_lsn() > lsn AS flushed FROM create_commits WHERE id = ${t.id}`;
      expect(row).toEqual({ setting: 'off', flushed: true });
    }
  });
});
