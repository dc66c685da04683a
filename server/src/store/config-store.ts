import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { ConfigDataSchema, type ConfigData } from '../admin/schema.js';
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

export interface ConfigStore {
  /** The current configuration. Treat as read-only; change it through update(). */
  get(): ConfigData;
  /** Applies `change` to a copy, writes it durably, and only then makes it current. */
  update(change: (draft: ConfigData) => void): Promise<ConfigData>;
  /** Called after every successful update. */
  onChange(listener: (data: ConfigData) => void): void;
  /** True when config.json did not exist before this start. */
  readonly created: boolean;
}

export async function openConfigStore(dataDir: string): Promise<ConfigStore> {
  const file = new DurableJsonFile(join(dataDir, 'config.json'));
  const db = new Low<ConfigData>(file, ConfigDataSchema.parse({}));
  await db.read();
  // Written back in the current shape at once: what reading generated (a webhook URL's new signing
  // secret) must be the same after the next restart.
  if (file.outdated) await db.write();
  let created = false;
  const exists = await readFile(join(dataDir, 'config.json')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    created = true;
    await db.write();
  }
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
