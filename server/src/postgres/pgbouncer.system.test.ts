import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { StartupError } from '../store/startup-error.js';
import { startPgBouncer } from '../test-support/pgbouncer.js';
import { eventually } from '../test-support/receiver.js';
import { LOCK } from './pg-leadership.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { createTestDatabase, dropTestDatabase } from '../test-support/test-database.js';

// Instances behind Debian's PgBouncer (installed by .ci/run), in front of the run's PostgreSQL. In
// transaction or statement pooling a PostgreSQL session serves whichever connection comes next: an
// instance's LISTEN hears nothing of the others (PgBouncer drops a notice that reaches a session no
// client holds), so a ticket it holds in memory would be served after another instance changed it;
// tried before the check: the second instance showed a ticket without the reply the first had
// answered 201 for, and creates failed on the driver's statements. Session pooling works as PostgreSQL
// itself does.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function behindPgBouncer(settings: Record<string, string>) {
  const db = await createTestDatabase();
  cleanup.push(() => dropTestDatabase(db.name));
  const bouncer = await startPgBouncer(db.url, settings);
  cleanup.push(() => bouncer.close());
  return Object.assign(bouncer, { direct: db.url });
}

const env = { TICKETING_SCHEDULER_SECONDS: '0', TICKETING_DATABASE_WAIT_SECONDS: '20' };

describe('behind PgBouncer', () => {
  const sharing: [string, Record<string, string>][] = [
    ['transaction pooling', { pool_mode: 'transaction' }],
    // Idle sessions handed out oldest first instead of newest first.
    ['transaction pooling, sessions in turn', { pool_mode: 'transaction', server_round_robin: '1' }],
    ['transaction pooling, one session', { pool_mode: 'transaction', default_pool_size: '1' }],
    ['statement pooling', { pool_mode: 'statement' }],
  ];
  for (const [name, settings] of sharing) {
    it(`an instance refuses to start in ${name}, and says what to change`, async () => {
      const bouncer = await behindPgBouncer(settings);
      // Two sessions open and idle in the pool, as on a pooler that has served a while: with sessions
      // handed out in turn, only the check's second statement on one connection tells (database.ts).
      const warm = postgres(bouncer.url, { max: 2, onnotice: () => {} });
      await Promise.all(Array.from({ length: 2 }, () => warm.unsafe('SELECT pg_sleep(0.05)')));
      await warm.end();
      const started = Date.now();
      const err = await startServer({ databaseUrl: bouncer.url, env }).then(
        (s) => (cleanup.push(() => s.close()), undefined),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StartupError);
      expect((err as StartupError).message).toMatch(/pooler that shares each PostgreSQL session/);
      expect((err as StartupError).hint).toMatch(/pool_mode = session/);
      // At once, not after waiting out TICKETING_DATABASE_WAIT_SECONDS as for a database that is down.
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  }

  it('two instances in session pooling serve each other’s changes at once', async () => {
    // Sized as docs/deploy.md says: TICKETING_DATABASE_POOL + 4 sessions per instance (the scheduler
    // on), and one to spare each (the probe a failed statement opens, on a loaded machine). A client
    // beyond that would wait for a session (and fail after query_wait_timeout).
    const pool = 4;
    const bouncer = await behindPgBouncer({
      pool_mode: 'session',
      default_pool_size: String(2 * (pool + 5)),
      query_wait_timeout: '5',
    });
    const sized = { ...env, TICKETING_DATABASE_POOL: String(pool), TICKETING_SCHEDULER_SECONDS: '1' };
    const a = await startServer({ databaseUrl: bouncer.url, env: sized });
    cleanup.push(() => a.close());
    const b: TestServer = await startServer({ databaseUrl: bouncer.url, env: sized, keys: a.keys });
    cleanup.push(() => b.close());
    const t = await createTicket(a);
    for (let i = 0; i < 20; i++) {
      const [writer, reader] = i % 2 ? [b, a] : [a, b];
      // The reader holds the ticket (a read puts it in memory), then the other instance changes it.
      expect((await reader.call('GET', `/ticket?id=${t.id}`)).status).toBe(200);
      const reply = await writer.call('POST', '/reply', { json: { ticket_id: t.id, message: `reply ${i}` } });
      expect(reply.status).toBe(201);
      const seen = (await reader.call('GET', `/ticket?id=${t.id}`)).body;
      expect(seen.replies.map((r: { message: string }) => r.message).at(-1)).toBe(`reply ${i}`);
      expect(seen.updated_at).toBe(reply.body.updated_at);
    }
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createTicket(i % 2 ? b : a, { email: `c${i}@example.com` })),
    );
    expect(new Set(created.map((c) => c.number)).size).toBe(20);
    expect((await b.call('GET', '/list?limit=50')).body.total).toBe(21);
    // Asked of PostgreSQL itself: each instance holds its pool (up to TICKETING_DATABASE_POOL) and the
    // four sessions docs/deploy.md counts beside it, and one instance leads.
    const direct = postgres(bouncer.direct, { max: 1, onnotice: () => {} });
    cleanup.push(() => direct.end());
    await eventually(
      async () => {
        const rows = await direct<{ name: string; n: number }[]>`
          SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name LIKE 'ticketing%' GROUP BY 1`;
        const held = Object.fromEntries(rows.map((r) => [r.name, r.n]));
        const [lead] = await direct<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid = ${LOCK[0]} AND objid = ${LOCK[1]} AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
        // 'ticketing': the pools and each instance's listener for live events and configuration changes.
        return (
          held['ticketing-changes'] === 2 &&
          held['ticketing-watchdog'] === 2 &&
          held['ticketing-scheduler'] === 2 &&
          held.ticketing! > 2 &&
          held.ticketing! <= 2 * (pool + 1) &&
          lead!.n === 1
        );
      },
      5000,
      'each instance holding its pool and four sessions, one leading',
    );
  });
});
