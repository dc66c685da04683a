import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// Schema version 5 gave tickets their numbers: rows stored before it are numbered oldest first when
// a server migrates the database. This file runs in the `postgres` test project only (vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('ticket numbers of tickets stored before schema version 5', () => {
  it('are given oldest first per mode at the migration, and new tickets follow them', async () => {
    const a = await startServer();
    cleanup.push(() => a.close());
    const first = await createTicket(a, { subject: 'first' });
    const second = await createTicket(a, { subject: 'second' });
    const third = await createTicket(a, { subject: 'third' });
    const testMode = await createTicket(a, { subject: 'test' }, a.keys.pkTest);
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // As version 4 left it: no numbers anywhere. `first` is made the newest, so the order is the
    // creation time's, not the order of the rows. Version 13, which moves the numbers to a sequence per
    // mode, runs again after 5: what it takes away (version 7's per-status counter, whose counting
    // this test does not read) is put back as it found it.
    await sql.unsafe(`
      UPDATE tickets SET data = data - 'number', item = item - 'number';
      ALTER TABLE tickets DROP COLUMN number;
      DROP SEQUENCE ticket_numbers_live, ticket_numbers_test;
      CREATE TABLE ticket_counts (mode text NOT NULL, status text NOT NULL, n bigint NOT NULL, PRIMARY KEY (mode, status));
      CREATE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER tickets_counted AFTER INSERT ON tickets FOR EACH ROW EXECUTE FUNCTION ticket_counts_follow();
      DELETE FROM schema_migrations WHERE version IN (5, 13);
    `);
    const later = '2030-01-01T00:00:00.000Z';
    await sql`
      UPDATE tickets SET created_at = ${later}, data = jsonb_set(data, '{created_at}', to_jsonb(${later}::text))
      WHERE id = ${first.id}`;

    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    const number = async (id: string, key = b.keys.sk) =>
      (await b.call('GET', `/ticket?id=${id}`, { key })).body.number as number;
    expect([await number(second.id), await number(third.id), await number(first.id)]).toEqual([1001, 1002, 1003]);
    expect(await number(testMode.id, b.keys.skTest)).toBe(1001);
    const list = (await b.call('GET', '/list')).body.data as { id: string; number: number }[];
    expect(list.find((t) => t.id === first.id)!.number).toBe(1003);
    expect((await b.call('GET', '/ticket?number=1003')).body.id).toBe(first.id);
    expect((await createTicket(b)).number).toBe(1004);
    expect((await createTicket(b, {}, b.keys.pkTest)).number).toBe(1002);
  });
});

describe('the move of ticket numbers to a sequence (schema version 13)', () => {
  it('waits for a create of the earlier version that holds the counter, and gives its number to no one else', async () => {
    const a = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => a.close());
    const first = await createTicket(a, { subject: 'first' });
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // As version 12 left it: the counter at the highest number given, and version 7's per-status
    // counter (whose counting this test does not read).
    await sql.unsafe(`
      DROP SEQUENCE ticket_numbers_live, ticket_numbers_test;
      CREATE TABLE ticket_numbers (mode text PRIMARY KEY, last int NOT NULL);
      INSERT INTO ticket_numbers (mode, last) SELECT mode, max(number) FROM tickets GROUP BY mode;
      CREATE TABLE ticket_counts (mode text NOT NULL, status text NOT NULL, n bigint NOT NULL, PRIMARY KEY (mode, status));
      CREATE FUNCTION ticket_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER tickets_counted AFTER INSERT ON tickets FOR EACH ROW EXECUTE FUNCTION ticket_counts_follow();
      DELETE FROM schema_migrations WHERE version = 13;
    `);
    // An instance of the earlier version in the middle of a create: its number taken, its row written,
    // not yet committed.
    const old = await sql.reserve();
    cleanup.push(async () => old.release());
    await old`BEGIN`;
    const [taken] = await old<{ last: number }[]>`UPDATE ticket_numbers SET last = last + 1 RETURNING last`;
    expect(taken!.last).toBe(first.number + 1);
    await old`
      INSERT INTO tickets
      SELECT r.* FROM tickets t, LATERAL jsonb_populate_record(t,
        jsonb_build_object('id', 'tkt_createdByTheOldVersion', 'number', ${taken!.last}::int)) r
      WHERE t.id = ${first.id}`;
    // The new version starts (and migrates) meanwhile; the old create commits half a second later.
    const starting = startServer({
      keys: a.keys,
      databaseUrl: a.databaseUrl!,
      env: { TICKETING_SCHEDULER_SECONDS: '0' },
    });
    await new Promise((ok) => setTimeout(ok, 500));
    await old`COMMIT`;
    const b = await starting;
    cleanup.push(() => b.close({ keepData: true }));
    const next = await b.call('POST', '/create', {
      key: b.keys.sk,
      json: { name: 'Ada', email: 'ada@example.com', subject: 'after', message: 'After the move.' },
    });
    expect(next.status, next.text).toBe(201);
    expect(next.body.number).toBe(taken!.last + 1);
  });
});
