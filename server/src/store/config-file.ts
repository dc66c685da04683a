import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { ConfigDataSchema, type ConfigData } from '../model/index.js';
import type { ConfigStore } from './config-store.js';
import { writeFileDurable } from './durable-write.js';
import { StartupError } from './startup-error.js';

/**
 * lowdb's own JSONFile adapter renames without fsync; this one writes durably, and refuses to start
 * on a file that does not parse instead of treating it as empty (which would lose the configuration).
 */
const serialize = (data: ConfigData) => JSON.stringify(data, null, 2) + '\n';

class DurableJsonFile implements Adapter<ConfigData> {
  /** The file holds an older shape than the one read from it (a resource missing, a secret to move). */
  outdated = false;

  constructor(private readonly path: string) {}

  async read(): Promise<ConfigData | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new StartupError(
        `The configuration file ${this.path} is not valid JSON.`,
        'Restore it from a backup or fix it by hand; the server has not changed it.',
      );
    }
    const parsed = ConfigDataSchema.safeParse(raw);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new StartupError(
        `The configuration file ${this.path} does not match the expected shape (${first?.path.join('.')}: ${first?.message}).`,
        'Restore it from a backup or fix it by hand; the server has not changed it.',
      );
    }
    this.outdated = serialize(parsed.data) !== text;
    return parsed.data;
  }

  write(data: ConfigData): Promise<void> {
    return writeFileDurable(this.path, serialize(data));
  }
}

/**
 * A ConfigStore on a lowdb database of any adapter: config.json through DurableJsonFile here, lowdb's
 * in-memory `Memory` adapter in unit tests. Writes are queued one after another; each is checked
 * against the schema whole and written before it becomes current.
 */
export async function lowConfigStore(
  db: Low<ConfigData>,
  options: { /** Whether what was read is in an older shape than the current one. */ outdated?: () => boolean } = {},
): Promise<ConfigStore> {
  // Read through the adapter rather than db.read(), which keeps the default on an empty store: an empty
  // store is the first start, whose keys are created and printed.
  const stored = await db.adapter.read();
  const created = stored === null;
  db.data = stored ?? ConfigDataSchema.parse({});
  // Written back in the current shape at once (and a fresh one written at all): what reading generated
  // (a webhook URL's new signing secret) must be the same after the next restart.
  if (created || options.outdated?.()) await db.write();
  const listeners: ((data: ConfigData) => void)[] = [];
  let queue: Promise<unknown> = Promise.resolve();
  return {
    created,
    get: () => db.data,
    update(change) {
      const run = queue.then(async () => {
        const draft = structuredClone(db.data);
        change(draft);
        const next = ConfigDataSchema.parse(draft);
        await db.adapter.write(next);
        db.data = next;
        for (const l of listeners) l(next);
        return next;
      });
      queue = run.catch(() => {});
      return run;
    },
    onChange: (listener) => void listeners.push(listener),
  };
}

/** data/config.json, read (and checked) once at start, written durably on every change. */
export function openConfigFile(dataDir: string): Promise<ConfigStore> {
  const file = new DurableJsonFile(join(dataDir, 'config.json'));
  return lowConfigStore(new Low<ConfigData>(file, ConfigDataSchema.parse({})), { outdated: () => file.outdated });
}
