import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurable } from './durable-write.js';
import { LAYOUT } from './layout.js';
import { StartupError } from './startup-error.js';

/**
 * The layout of the data directory that this code reads and writes, recorded in data/FORMAT. Raise
 * it with every change to the layout or to a stored file's shape that older code would misread, and
 * add the step from the previous format to datadir/migrations.ts.
 *
 * 0: directories written before the format was recorded (no FORMAT file, the layout of format 1).
 * 1: the layout: config.json, audit.jsonl, webhook_log.jsonl, outbox/, {live,test}/tickets
 *    and {live,test}/files, FORMAT.
 * 2: every ticket has its `number`; {live,test}/last-deleted-number keeps the highest number of a
 *    deleted ticket, so none is given again.
 */
export const DATA_FORMAT = 2;

/** The directory's format: a number, or 'new' for a directory that holds no data yet. */
export async function readDataFormat(dataDir: string): Promise<number | 'new'> {
  const path = join(dataDir, LAYOUT.format);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const hasData = await stat(join(dataDir, 'config.json')).then(
      () => true,
      () => false,
    );
    return hasData ? 0 : 'new';
  }
  if (!/^\d{1,6}\s*$/.test(text))
    throw new StartupError(
      `The format file ${path} is damaged.`,
      `It should hold one number; this server writes ${DATA_FORMAT}.`,
    );
  return Number(text.trim());
}

export const writeDataFormat = (dataDir: string, format: number) =>
  writeFileDurable(join(dataDir, LAYOUT.format), `${format}\n`);
