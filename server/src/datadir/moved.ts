import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurable } from '../store/durable-write.js';
import { LAYOUT } from '../store/layout.js';
import { StartupError } from '../store/startup-error.js';

/**
 * Marks a data directory whose data `ticketing migrate` copied into PostgreSQL. From then on it is a
 * frozen copy: a server or a CLI command started without TICKETING_DATABASE_URL (a CLI wrapper or a
 * cron job that does not read the server's environment file) would otherwise succeed on it, backing up
 * stale data, or making keys and passwords the real servers never see.
 */
export async function markMoved(dataDir: string, where: string, at: Date): Promise<void> {
  await writeFileDurable(
    join(dataDir, LAYOUT.moved),
    `The data of this directory was copied into PostgreSQL (${where}) at ${at.toISOString()}.\n` +
      'Run the server and the ticketing command with TICKETING_DATABASE_URL set (docs/deploy.md, "PostgreSQL").\n',
  );
}

/** Refuses a directory marked by markMoved, saying where the data went and what to do. */
export async function refuseMoved(dataDir: string): Promise<void> {
  const text = await readFile(join(dataDir, LAYOUT.moved), 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const where = /\(([^)]*)\)/.exec(text)?.[1] ?? 'PostgreSQL';
  throw new StartupError(
    `The data of ${dataDir} was moved into PostgreSQL (${where}); this directory is a frozen copy. ` +
      'Set TICKETING_DATABASE_URL as the servers have it (the CLI wrapper of docs/deploy.md reads /etc/ticketing/env).',
    `To use this directory again instead, delete ${join(dataDir, LAYOUT.moved)} (what changed in PostgreSQL since is not in it).`,
  );
}
