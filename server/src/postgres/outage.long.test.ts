import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { startThrowawayPostgres, withDatabase } from '../test-support/postgres-setup.js';
import { eventually } from '../test-support/receiver.js';
import { makeKeys, ticketInput } from '../test-support/server.js';
import { openSse } from '../test-support/sse.js';

// Two instances on a PostgreSQL of this file's own (the run's shared one is not disturbed): their
// connections are ended by an admin, then PostgreSQL stops for five seconds and starts again, all
// under load. A long run (about 40 s here: `pnpm test:long`, .ci/run); it needs no shared database.

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
});

interface Answer {
  instance: number;
  phase: string;
  status: number; // 0: no HTTP answer at all (the process is gone)
  ms: number;
  retryAfter: string | null;
  code?: string;
  id?: string;
  error?: string; // why there was no answer, to read when the test fails
}

describe('two instances when their database goes away and comes back', () => {
  it('stay alive, answer 503 with Retry-After at once while it is gone, and lose no acknowledged write', async () => {
    const pg = await startThrowawayPostgres();
    cleanup.push(pg.remove);
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    cleanup.push(() => admin.end({ timeout: 1 }));
    await admin.unsafe('CREATE DATABASE ticketing');
    const url = withDatabase(pg.url, 'ticketing');
    const keys = makeKeys();
    const start = async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ticketing-outage-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      const child = await startChild({
        TICKETING_DATA_DIR: dir,
        TICKETING_DATABASE_URL: url,
        TICKETING_RATE_LIMIT: 'off',
        TICKETING_LOG_LEVEL: 'info',
        TICKETING_SCHEDULER_SECONDS: '1',
        TICKETING_KEYS: Object.values(keys).join(','),
      });
      cleanup.push(async () => {
        child.proc.kill('SIGKILL');
        await child.exited;
      });
      return child;
    };
    // One after the other: the first migrates the new database.
    const instances: ChildServer[] = [await start(), await start()];
    const alive = () => instances.map((c) => c.proc.exitCode === null && c.proc.signalCode === null);
    const output = () => instances.map((c) => c.output()).join('\n');

    const answers: Answer[] = [];
    let phase = 'before';
    const create = async (instance: number): Promise<Answer> => {
      const began = performance.now();
      const at = phase;
      try {
        const res = await fetch(`${instances[instance]!.url}/v1/create`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(ticketInput({ subject: `load ${answers.length}` })),
          signal: AbortSignal.timeout(20_000),
        });
        const body = (await res.json()) as { id?: string; error?: { code: string } };
        return {
          instance,
          phase: at,
          status: res.status,
          ms: performance.now() - began,
          retryAfter: res.headers.get('Retry-After'),
          code: body.error?.code,
          id: res.status === 201 ? body.id : undefined,
        };
      } catch (e) {
        const error =
          e instanceof Error ? `${e.message} ${String((e.cause as Error | undefined)?.message ?? '')}` : String(e);
        return { instance, phase: at, status: 0, ms: performance.now() - began, retryAfter: null, error };
      }
    };
    // Load: two clients on each instance, each one request after the other, until told to stop.
    let loading = true;
    const client = async (instance: number) => {
      while (loading) {
        const a = await create(instance);
        answers.push(a);
        if (a.status !== 201) await sleep(50); // a client that was refused does not hammer
      }
    };
    const load = Promise.all([client(0), client(0), client(1), client(1)]);
    const ready = async (instance: number) => {
      const began = performance.now();
      const res = await fetch(`${instances[instance]!.url}/ready`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, ms: performance.now() - began, body: (await res.json()) as Record<string, any> };
    };

    await eventually(() => answers.filter((a) => a.status === 201).length >= 20, 15_000, 'load to run');

    // An admin (or a pooler) ends every session of the instances, three times while they write.
    phase = 'terminated';
    for (let i = 0; i < 3; i++) {
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = 'ticketing' AND pid <> pg_backend_pid()`;
      await sleep(400);
    }
    await sleep(1000);
    expect(alive(), output().slice(-6000)).toEqual([true, true]);

    // PostgreSQL stops (a restart, a failover) for five seconds.
    phase = 'down';
    await admin.end({ timeout: 1 });
    await pg.stop();
    const downSince = performance.now();
    const readies = [];
    const knowsGone = (c: ChildServer) => c.output().includes('"msg":"database unreachable"');
    const metas: number[] = [];
    const meta = async (instance: number) =>
      (
        await fetch(`${instances[instance]!.url}/v1/meta`, {
          headers: { Authorization: `Bearer ${keys.pk}` },
          signal: AbortSignal.timeout(10_000),
        })
      ).status;
    await sleep(500);
    while (performance.now() - downSince < 5000) {
      readies.push(await ready(0), await ready(1));
      // What an instance holds it serves once it knows the database is gone.
      for (const i of [0, 1]) if (knowsGone(instances[i]!)) metas.push(await meta(i));
      await sleep(300);
    }
    expect(alive(), output().slice(-6000)).toEqual([true, true]);

    // It comes back: both serve again within seconds, without a restart.
    phase = 'back';
    await pg.start();
    const backSince = performance.now();
    const backAfter: number[] = [];
    for (const instance of [0, 1]) {
      await eventually(
        async () => {
          const a = await create(instance);
          answers.push(a);
          return a.status === 201;
        },
        20_000,
        `instance ${instance} to write`,
      );
      backAfter.push(performance.now() - backSince);
    }
    await sleep(1000);
    loading = false;
    await load;
    expect(alive(), output().slice(-6000)).toEqual([true, true]);

    // While it was gone: every request answered 503 `unavailable` with Retry-After, within 3 s.
    const down = answers.filter((a) => a.phase === 'down');
    expect(down.length).toBeGreaterThan(4);
    for (const a of down.filter((x) => x.status !== 201)) {
      expect(a, JSON.stringify(a)).toMatchObject({ status: 503, code: 'unavailable' });
      expect(a.retryAfter).toMatch(/^\d+$/);
      expect(a.ms).toBeLessThan(3000);
    }
    // /ready said so within a second, with the reason.
    expect(readies.length).toBeGreaterThan(4);
    for (const r of readies) {
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(1000);
      expect(r.body.checks.store).toEqual({ ok: false, error: 'database_unreachable' });
    }
    // What an instance holds in memory (the configuration, the keys it was given) it still serves.
    expect(metas.length).toBeGreaterThan(4);
    expect(new Set(metas)).toEqual(new Set([200]));
    // No answer of the whole run was a 500, none was missing (the process was there throughout).
    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    expect(backAfter.every((ms) => ms < 15_000)).toBe(true);

    // Every acknowledged ticket is stored, once.
    const acknowledged = answers.filter((a) => a.id).map((a) => a.id!);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    const db = postgres(url, { max: 1, onnotice: () => {} });
    cleanup.push(() => db.end({ timeout: 1 }));
    const rows = await db<{ id: string; n: number }[]>`
      SELECT id, count(*)::int AS n FROM tickets WHERE mode = 'live' AND id = ANY(${acknowledged}) GROUP BY id`;
    expect(rows.length).toBe(acknowledged.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);

    // The scheduler's lead was taken again: one instance holds it.
    await eventually(
      async () =>
        (
          await db`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND classid = 7341020 AND objid = 18 AND objsubid = 2`
        ).length === 1,
      10_000,
      'one leader after the outage',
    );

    // Live events still cross instances: LISTEN was renewed after the return.
    const events = await openSse(`${instances[1]!.url}/v1/events`, { Authorization: `Bearer ${keys.sk}` });
    cleanup.push(async () => events.close());
    expect(events.status).toBe(200);
    const made = await create(0);
    expect(made.status).toBe(201);
    const seen = await events.next((e) => e.event === 'ticket.created' && e.data.ticket.id === made.id, 5000);
    expect(seen.data.ticket.id).toBe(made.id);

    // Each instance logged the outage once and the return once, as JSON lines.
    for (const c of instances) {
      const lines = c
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string });
      expect(lines.filter((l) => l.msg === 'database unreachable')).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'database reachable again')).toHaveLength(1);
    }
    expect(output()).not.toContain('TypeError');
    console.log(
      JSON.stringify({
        answers: answers.length,
        acknowledged: acknowledged.length,
        down503: down.filter((a) => a.status === 503).length,
        slowestDownMs: Math.round(Math.max(...down.map((a) => a.ms))),
        slowestReadyMs: Math.round(Math.max(...readies.map((r) => r.ms))),
        backAfterMs: backAfter.map(Math.round),
      }),
    );
  }, 120_000);
});
