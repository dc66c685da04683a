import { join } from 'node:path';
import { backupDataDir } from '../backup/backup-file.js';
import { DATA_FORMAT, readDataFormat, writeDataFormat } from '../store/data-format.js';
import { LAYOUT } from '../store/layout.js';
import { StartupError } from '../store/startup-error.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { refuseMoved } from './moved.js';

export interface PrepareOptions {
  serverVersion: string;
  print: (line: string) => void;
  now?: () => Date;
  /** The steps to run; tests pass their own chain to exercise the runner. */
  migrations?: Migration[];
  current?: number;
}

/**
 * Makes a data directory ready for this code, with its lock held: a new directory gets the current
 * format; an older one is backed up (data/backups/, through the same code as `ticketing backup`) and
 * migrated step by step, the format recorded after each; a newer one is refused with one line.
 */
export async function prepareDataDir(dataDir: string, options: PrepareOptions): Promise<{ backup?: string }> {
  const current = options.current ?? DATA_FORMAT;
  const migrations = options.migrations ?? MIGRATIONS;
  const now = options.now ?? (() => new Date());
  await refuseMoved(dataDir);
  const format = await readDataFormat(dataDir);
  if (format === 'new') {
    await writeDataFormat(dataDir, current);
    return {};
  }
  if (format === current) return {};
  if (format > current)
    throw new StartupError(
      `The data directory ${dataDir} is format ${format}, written by a newer Ticketing; this one (${options.serverVersion}) reads format ${current} at most. Upgrade Ticketing, or restore a backup made by this version into a new directory.`,
      '',
    );

  const stamp = now().toISOString().replace(/[:.]/g, '-');
  const backup = join(dataDir, LAYOUT.backups, `before-format-${current}-${stamp}.tar.gz`);
  options.print(
    `The data directory is format ${format}; migrating to format ${current}. Backing up first to ${backup}`,
  );
  try {
    await backupDataDir(dataDir, backup, options.serverVersion);
  } catch (err) {
    throw new StartupError(
      `Could not back up ${dataDir} before migrating it (${(err as Error).message}); nothing was changed.`,
      '',
    );
  }
  for (let from = format; from < current; from++) {
    const step = migrations.find((m) => m.from === from);
    if (!step)
      throw new StartupError(`No migration from data format ${from}; nothing after the backup was changed.`, '');
    try {
      await step.run(dataDir);
    } catch (err) {
      throw new StartupError(
        `Migrating ${dataDir} from format ${from} failed: ${(err as Error).message}. The backup from before it is ${backup}; restore it with: ticketing restore ${backup} <new directory>`,
        '',
      );
    }
    await writeDataFormat(dataDir, from + 1);
    options.print(`  format ${from} -> ${from + 1}: ${step.what}`);
  }
  return { backup };
}
