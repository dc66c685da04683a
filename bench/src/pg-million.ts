import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type PostgresServer } from './postgres-server.js';
import { seedPostgres } from './pg-seed.js';
import { ROOT } from './servers.js';

/**
 * Where the seeded million is kept between runs (a new seed shape gets a new name). BENCH_PG_MILLION_DIR
 * points a run at another copy of it (a run may migrate the schema of the cluster it is given).
 */
const PG_MILLION_DIR = process.env.BENCH_PG_MILLION_DIR ?? join(tmpdir(), 'ticketing-bench-pg-1000000-v1');

/**
 * The kept PostgreSQL cluster with `count` seeded tickets, started; seeded first (minutes) when it is
 * not there or its seeding did not finish. `end` is when the seeded year ends (its last tickets are new).
 */
export async function millionDatabase(
  count: number,
  say: (line: string) => void,
): Promise<PostgresServer & { end: number; seedSeconds?: number }> {
  const marker = join(PG_MILLION_DIR, 'seeded.json');
  if (!existsSync(marker)) rmSync(PG_MILLION_DIR, { recursive: true, force: true });
  const db = await startPostgres(PG_MILLION_DIR);
  if (existsSync(marker)) {
    const kept = JSON.parse(readFileSync(marker, 'utf8')) as { count: number; end: number };
    if (kept.count === count) return { ...db, end: kept.end };
    await db.stop();
    rmSync(PG_MILLION_DIR, { recursive: true, force: true });
    return millionDatabase(count, say);
  }
  const end = Date.now();
  const seedSeconds = await seedPostgres(db.url, count, end, say);
  writeFileSync(marker, JSON.stringify({ count, end, seedSeconds }));
  return { ...db, end, seedSeconds };
}

/**
 * `ticketing migrate --to url` on a data directory: its seconds, and its peak memory (VmHWM, the
 * highest resident set, read from /proc while it runs).
 */
export function migrateTimed(dataDir: string, url: string): Promise<{ seconds: number; peakMb: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'server/dist/cli.js'), 'migrate', '--to', url], {
    env: { PATH: process.env.PATH, TICKETING_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (c: Buffer) => (errors = (errors + c.toString()).slice(-2000)));
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      /* exited */
    }
  }, 50);
  return new Promise((ok, fail) =>
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) fail(new Error(`migrate exited with ${code}: ${errors}`));
      else ok({ seconds: (performance.now() - t0) / 1000, peakMb: peakKb / 1024 });
    }),
  );
}

// `tsx src/pg-million.ts [count]`: seeds (or finds) the kept database and stops it, for a run to reuse.
if (process.argv[1]?.endsWith('pg-million.ts')) {
  const db = await millionDatabase(Number(process.argv[2] ?? 1_000_000), (l) => console.log(l));
  console.log(`ready: ${db.url}, seeded in ${db.seedSeconds?.toFixed(0) ?? '(kept)'} s`);
  await db.stop();
}
