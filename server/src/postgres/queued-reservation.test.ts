import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { pgRelay } from '../test-support/pg-relay.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';

// A write that waits for a pooled connection while one of the pool's connections ends (a network
// blip, a pooler, an admin) gets the connection that replaces it and is answered (issue 32: in CI a
// create during the outage test was never answered). The driver handed the waiting reservation to
// the reconnect and dropped it once connected: the request waited for ever. And when the connection
// was ended by PostgreSQL's FATAL (pg_terminate_backend, a shutdown) read while a query ran, that
// error was kept and failed the next session's first query: the waiting request got a 503 that was
// not its own. Made real on a pool of two: two creates hold both connections, waiting to write to the
// tickets table that another session keeps locked, a third waits for a connection, and the
// connection of one of the two is ended. This file runs in the `postgres` test project only.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface Answer {
  status: number; // 0: no answer within the client's 15 s
  ms: number;
  code?: string;
}

async function create(s: TestServer, subject: string): Promise<Answer> {
  const began = performance.now();
  try {
    const res = await fetch(`${s.base}/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.keys.sk}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(ticketInput({ subject })),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, ms: performance.now() - began, code: body.error?.code };
  } catch {
    return { status: 0, ms: performance.now() - began };
  }
}

/**
 * Three creates on a pool of two while the tickets table is locked against writes: two hold the
 * connections, the third waits for one. `end` ends the connection of one of the two (given its
 * backend's pid and the port PostgreSQL sees it on); then the table is unlocked. Returns the three answers.
 */
async function oneConnectionEnds(s: TestServer, databaseUrl: string, end: (pid: number, port: number) => unknown) {
  await Promise.all([createTicket(s, {}, s.keys.sk), createTicket(s, {}, s.keys.sk)]); // both connections made
  const admin = postgres(databaseUrl, { max: 3, onnotice: () => {} });
  cleanup.push(() => admin.end({ timeout: 1 }));
  const writes = await admin.reserve();
  await writes`BEGIN`;
  await writes`LOCK TABLE tickets IN SHARE MODE`;
  // The key throttle's table, locked for a moment: the three requests read it together, so each is
  // past it (no statement of theirs waits for a connection) before any of them reserves one.
  const limits = await admin.reserve();
  await limits`BEGIN`;
  await limits`LOCK TABLE rate_limits IN ACCESS EXCLUSIVE MODE`;
  const answers = Promise.all([0, 1, 2].map((i) => create(s, `queued ${i}`)));
  // The pool's connections are `ticketing`; the throttle read goes on the change feed's own
  // connection (`ticketing-changes`, postgres/change-feed.ts) where it has one.
  const waiting = (what: string, app = 'ticketing') => admin<{ pid: number; port: number }[]>`
    SELECT pid, client_port AS port FROM pg_stat_activity
    WHERE datname = current_database() AND application_name LIKE ${app}
      AND wait_event_type = 'Lock' AND query LIKE ${`%${what}%`}`;
  await eventually(
    async () => (await waiting('rate_limits', 'ticketing%')).length >= 1,
    10_000,
    'a throttle read to wait',
  );
  await sleep(300); // the other two requests' reads wait for the next statement
  await limits`ROLLBACK`;
  limits.release();
  await eventually(async () => (await waiting('INSERT INTO tickets')).length === 2, 10_000, 'two creates to wait');
  await sleep(300); // the third waits for a connection
  const [holder] = await waiting('INSERT INTO tickets');
  await end(holder!.pid, holder!.port);
  await sleep(500); // the pool connects again
  await writes`ROLLBACK`;
  writes.release();
  return answers;
}

function expectAnswered(got: Answer[]) {
  // The one whose connection ended answers 503 (its transaction rolled back); the other two are stored.
  // No answer at all (status 0) is the request the driver lost.
  expect(got.map((a) => a.status).sort(), JSON.stringify(got)).toEqual([201, 201, 503]);
  expect(got.find((a) => a.status === 503)!.code).toBe('unavailable');
}

describe('a create waiting for a pooled connection', () => {
  const env = { TICKETING_SCHEDULER_SECONDS: '0', TICKETING_DATABASE_POOL: '2' };

  it('is answered when the network cuts a connection of the pool meanwhile', async () => {
    const first = await startServer({ env });
    cleanup.push(() => first.close());
    const relay = await pgRelay(first.databaseUrl!);
    cleanup.push(() => new Promise((ok) => relay.server.close(ok)));
    const s = await startServer({ env, keys: first.keys, databaseUrl: relay.url });
    cleanup.push(() => s.close({ keepData: true }));
    const got = await oneConnectionEnds(s, first.databaseUrl!, (_pid, port) => relay.cut(port));
    expectAnswered(got);
    expect((await s.call('GET', '/list?q=queued', { key: s.keys.sk })).body.total).toBe(2);
  }, 60_000);

  it('is answered, and stored, when an admin terminates a connection of the pool meanwhile', async () => {
    const s = await startServer({ env });
    cleanup.push(() => s.close());
    const got = await oneConnectionEnds(s, s.databaseUrl!, async (pid) => {
      const admin = postgres(s.databaseUrl!, { max: 1, onnotice: () => {} });
      await admin`SELECT pg_terminate_backend(${pid})`;
      await admin.end();
    });
    expectAnswered(got);
    expect((await s.call('GET', '/list?q=queued', { key: s.keys.sk })).body.total).toBe(2);
  }, 60_000);
});
