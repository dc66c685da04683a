import type postgres from 'postgres';
import type { Logger } from 'pino';
import { ConfigDataSchema, type ConfigData } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { StartupError } from '../store/startup-error.js';
import { onRollback } from '../store/unit-of-work.js';
import type { Database } from './database.js';

/** The channel on which an instance that changed the configuration tells the others its new version. */
const CONFIG_CHANNEL = 'ticketing_config';

/** The keys live in their own table (postgres/pg-key-store.ts), never in the configuration row. */
const withoutKeys = (data: ConfigData): ConfigData => ({ ...data, keys: [] });

/** The configuration as its row stores it. */
export const configRow = (data: ConfigData) => withoutKeys(data) as postgres.JSONValue;

function parse(raw: unknown): ConfigData {
  const parsed = ConfigDataSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new StartupError(
    `The configuration in the database does not match the expected shape (${first?.path.join('.')}: ${first?.message}).`,
    'Restore it from a backup (pg_dump) or fix the row in the config table; the server has not changed it.',
  );
}

/**
 * The configuration as one row (jsonb, with a version), held in memory by every instance. A change
 * locks the row, applies to what is stored (not to this instance's copy, which another may have
 * outdated), and tells every instance through NOTIFY in the same transaction: each reloads on the
 * notification, so a change made on one acts on all of them within milliseconds.
 */
export class PgConfigStore implements ConfigStore {
  private listeners: ((data: ConfigData) => void)[] = [];
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly db: Database,
    private data: ConfigData,
    private version: number,
    readonly created: boolean,
    private readonly logger: Logger,
  ) {}

  static async open(db: Database, logger: Logger): Promise<PgConfigStore> {
    const fresh = withoutKeys(ConfigDataSchema.parse({}));
    const inserted = await db.sql`
      INSERT INTO config (id, data, version) VALUES (1, ${db.sql.json(fresh as postgres.JSONValue)}, 1)
      ON CONFLICT (id) DO NOTHING RETURNING version`;
    const [row] = await db.sql<{ data: unknown; version: string }[]>`SELECT data, version FROM config WHERE id = 1`;
    const data = parse(row!.data);
    const store = new PgConfigStore(db, data, Number(row!.version), inserted.length > 0, logger);
    // Written back in the current shape when read in an older one: what reading generated (a webhook
    // URL's new signing secret) must be the same on every instance and after every restart.
    if (JSON.stringify(data) !== JSON.stringify(row!.data)) await store.update(() => {});
    store.unlisten = await db.listen(
      CONFIG_CHANNEL,
      (payload) => {
        if (Number(payload) > store.version) void store.reload();
      },
      // LISTEN is (re)established: a change missed while the connection was down is read now.
      () => void store.reload(),
    );
    return store;
  }

  // A property, not a method: callers hand `get` on unbound (webhookSender reads it at each send).
  get = (): ConfigData => this.data;

  /** Reads the stored row when it is newer than the copy in memory, and tells the listeners. */
  async reload() {
    try {
      const [row] = await this.db.sql<{ data: unknown; version: string }[]>`
        SELECT data, version FROM config WHERE id = 1`;
      if (!row || Number(row.version) <= this.version) return;
      this.set(parse(row.data), Number(row.version));
    } catch (err) {
      this.logger.error({ err }, 'configuration: could not read the change another instance made');
    }
  }

  private set(data: ConfigData, version: number) {
    this.data = data;
    this.version = version;
    for (const l of this.listeners) l(data);
  }

  update(change: (draft: ConfigData) => void): Promise<ConfigData> {
    return this.db.unit(async () => {
      const sql = await this.db.q();
      const [row] = await sql<{ data: unknown; version: string }[]>`
        SELECT data, version FROM config WHERE id = 1 FOR UPDATE`;
      const draft = structuredClone(ConfigDataSchema.parse(row!.data));
      change(draft);
      const next = withoutKeys(ConfigDataSchema.parse(draft));
      const version = Number(row!.version) + 1;
      await sql`UPDATE config SET data = ${sql.json(next as postgres.JSONValue)}, version = ${version} WHERE id = 1`;
      await sql`SELECT pg_notify(${CONFIG_CHANNEL}, ${String(version)})`;
      // Current at once for the rest of this request; if its transaction rolls back, the stored row is read again.
      const before = this.version;
      this.set(next, version);
      onRollback(() => {
        this.version = Math.min(this.version, before);
        void this.reload();
      });
      return next;
    });
  }

  onChange(listener: (data: ConfigData) => void) {
    this.listeners.push(listener);
  }

  async close() {
    await this.unlisten?.();
  }
}
