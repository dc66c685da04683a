import pg from 'pg';
import postgres from 'postgres';

/**
 * One driver's figures on the same statements: reads of a ticket by id, committed one-row inserts, and
 * a create's unit as the server sends it (BEGIN, INSERT, NOTIFY, COMMIT).
 */
export interface DriverResult {
  driver: string;
  readsPerS: number;
  readP99Ms: number;
  insertsPerS: number;
  insertP99Ms: number;
  unitsPerS: number;
  unitP99Ms: number;
}

const POOL = 10;
const CONCURRENCY = 16;

const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.99)] ?? 0;

/** `concurrency` loops calling `op` for `seconds`: operations a second and the p99 latency. */
async function run(seconds: number, op: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await op(n++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { perS: latencies.length / seconds, p99: p99(latencies) };
}

/**
 * The patched `postgres` driver (the server's) beside `pg` with its pool, each with 10 connections and
 * 16 callers, on the server's own statements: the ticket read by id; an insert in a transaction (BEGIN,
 * INSERT, COMMIT), each statement awaited; and a create's unit (BEGIN, INSERT, NOTIFY, COMMIT) as each
 * driver can send it: `postgres` pipelines the four in one write and one round trip, as the server's
 * units do (postgres/database.ts later()), while `pg` sends a statement once the one before answered.
 * Alternated `rounds` times; each figure is the median.
 */
export async function compareDrivers(url: string, ids: string[], seconds: number, rounds: number) {
  const porsager = postgres(url, { max: POOL, onnotice: () => {} });
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  await porsager`CREATE TABLE IF NOT EXISTS bench_driver_rows (id bigint, body text)`;
  const body = 'x'.repeat(600);
  const contenders = {
    'postgres (patched)': {
      read: (i: number) => porsager`SELECT data FROM tickets WHERE mode = 'live' AND id = ${ids[i % ids.length]!}`,
      insert: (i: number) =>
        porsager.begin((tx) => [tx`INSERT INTO bench_driver_rows (id, body) VALUES (${i}, ${body})`]),
      unit: async (i: number) => {
        const c = await porsager.reserve();
        try {
          await Promise.all(
            [
              c`begin`,
              c`INSERT INTO bench_driver_rows (id, body) VALUES (${i}, ${body})`,
              c`SELECT pg_notify('bench_driver', ${String(i)})`,
              c`commit`,
            ].map((q) => q.execute()),
          );
        } finally {
          c.release();
        }
      },
    },
    'pg + pg.Pool': {
      read: (i: number) =>
        pool.query({
          name: 'read',
          text: `SELECT data FROM tickets WHERE mode = 'live' AND id = $1`,
          values: [ids[i % ids.length]],
        }),
      insert: async (i: number) => {
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          await c.query({
            name: 'insert',
            text: 'INSERT INTO bench_driver_rows (id, body) VALUES ($1, $2)',
            values: [i, body],
          });
          await c.query('COMMIT');
        } finally {
          c.release();
        }
      },
      unit: async (i: number) => {
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          await c.query({
            name: 'insert',
            text: 'INSERT INTO bench_driver_rows (id, body) VALUES ($1, $2)',
            values: [i, body],
          });
          await c.query({ name: 'notify', text: `SELECT pg_notify('bench_driver', $1)`, values: [String(i)] });
          await c.query('COMMIT');
        } finally {
          c.release();
        }
      },
    },
  };
  const results = new Map<
    string,
    { reads: number[]; readP99: number[]; inserts: number[]; insertP99: number[]; units: number[]; unitP99: number[] }
  >();
  try {
    for (const [name, c] of Object.entries(contenders)) {
      await run(1, c.read); // connect and prepare
      results.set(name, { reads: [], readP99: [], inserts: [], insertP99: [], units: [], unitP99: [] });
    }
    for (let round = 0; round < rounds; round++)
      for (const [name, c] of Object.entries(contenders)) {
        const r = results.get(name)!;
        const read = await run(seconds, c.read);
        const insert = await run(seconds, c.insert);
        const unit = await run(seconds, c.unit);
        r.reads.push(read.perS);
        r.readP99.push(read.p99);
        r.inserts.push(insert.perS);
        r.insertP99.push(insert.p99);
        r.units.push(unit.perS);
        r.unitP99.push(unit.p99);
      }
  } finally {
    await porsager`DROP TABLE IF EXISTS bench_driver_rows`;
    await Promise.all([porsager.end({ timeout: 5 }), pool.end()]);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return [...results].map(([driver, r]): DriverResult => ({
    driver,
    readsPerS: median(r.reads),
    readP99Ms: median(r.readP99),
    insertsPerS: median(r.inserts),
    insertP99Ms: median(r.insertP99),
    unitsPerS: median(r.units),
    unitP99Ms: median(r.unitP99),
  }));
}
