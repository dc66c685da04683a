import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';
import { migrate } from './migrations.js';

// Schema version 11 wrote a new version of every ticket's row and left the old ones dead until a
// vacuum (issue 32: at a million tickets a month's report took 1.3 s instead of 0.25 s until then).
// The server vacuums such a table itself once its port is open. This file runs in the `postgres`
// test project only (vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const STARTED = 'vacuum after the schema migration started';
const DONE = 'vacuum after the schema migration done';
const ELSEWHERE = 'vacuum after the schema migration: another instance is at it';
const logged = (logs: string[], msg: string) => logs.filter((l) => l.includes(`"msg":"${msg}"`)).length;

describe('a migration that rewrites every ticket row', () => {
  it('is followed by VACUUM (ANALYZE) on one instance, after its port opens, while requests are served', async () => {
    const a = await startServer();
    cleanup.push(() => a.close()); // the database's owner: closed last, it drops it
    const tickets = 12;
    for (let i = 0; i < tickets; i++) await createTicket(a, { subject: `ticket ${i}` });
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // A new database's steps rewrote empty tables: no vacuum for them.
    expect(logged(a.logs, STARTED) + logged(a.logs, ELSEWHERE)).toBe(0);

    // As version 10 left the database; autovacuum off, so only the server's vacuum can clean.
    await sql.unsafe(`
      ALTER TABLE tickets SET (autovacuum_enabled = false);
      ALTER TABLE tickets DROP COLUMN created_ms, DROP COLUMN responded_ms, DROP COLUMN closed_ms,
        DROP COLUMN rated_ms, DROP COLUMN score;
      DELETE FROM schema_migrations WHERE version = 11;
    `);
    // Migrated by another process (`ticketing keys …` migrates too): the server finds the table due
    // from the database, not from a migration of its own.
    expect((await migrate(sql)).vacuumDue).toEqual(['tickets']);
    const stats = async () =>
      (
        await sql<{ dead: number; vacuumed: boolean }[]>`
          SELECT n_dead_tup::int AS dead, last_vacuum IS NOT NULL AS vacuumed
          FROM pg_stat_user_tables WHERE relname = 'tickets'`
      )[0]!;
    // The migrating session's statistics reach the shared ones within a second or so of its commit.
    await eventually(async () => (await stats()).dead >= tickets, 10_000, 'the rewrite counted as dead rows');
    expect((await stats()).vacuumed).toBe(false);

    // While this transaction holds the table's SHARE UPDATE EXCLUSIVE lock a VACUUM of it waits, and
    // nothing a request does (reads take ACCESS SHARE, writes ROW EXCLUSIVE) waits for either.
    const holder = await sql.reserve();
    await holder`BEGIN`;
    await holder`LOCK TABLE tickets IN SHARE UPDATE EXCLUSIVE MODE`;
    let held = true;
    cleanup.push(async () => {
      if (held) await holder`ROLLBACK`;
      holder.release();
    });
    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    const waiting = async () =>
      (
        await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'ticketing-vacuum' AND query ILIKE 'VACUUM%' AND wait_event_type = 'Lock'`
      )[0]!.n;
    await eventually(async () => (await waiting()) === 1, 10_000, "the server's VACUUM, waiting for the lock");
    expect(logged(b.logs, STARTED)).toBe(1);
    // The instance serves reads and writes while its VACUUM runs.
    expect((await b.call('GET', '/list')).body.total).toBe(tickets);
    const written = await createTicket(b, { subject: 'written while the vacuum runs' });
    expect((await b.call('GET', `/ticket?id=${written.id}`)).status).toBe(200);

    // A second instance starting meanwhile finds the table due too, and leaves it to the first.
    const c = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => c.close({ keepData: true }));
    await eventually(() => logged(c.logs, ELSEWHERE) === 1, 10_000, 'the second instance to stand back');
    expect(await waiting()).toBe(1);

    await holder`COMMIT`;
    held = false;
    await eventually(() => logged(b.logs, DONE) === 1, 20_000, 'the vacuum to end');
    await eventually(async () => (await stats()).vacuumed, 10_000, 'the vacuum in the statistics');
    // The rewrite's dead row versions are gone (one may be the write's own, counted after the vacuum).
    expect((await stats()).dead).toBeLessThanOrEqual(1);
    expect(logged(c.logs, STARTED)).toBe(0);

    // Vacuumed since the rewrite: the next start finds nothing to do.
    expect((await migrate(sql)).vacuumDue).toEqual([]);
  });
});
