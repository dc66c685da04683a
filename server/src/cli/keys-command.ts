import { parseArgs } from 'node:util';
import { controlJson } from '../control/control-client.js';
import { addKey, listKeys, revokeKey, type KeyView } from '../keys/commands.js';
import { ConfigKeyStore } from '../keys/key-store.js';
import type { AuditLog } from '../audit/audit.js';
import type { DatabaseConfig } from '../config/config.js';
import { Database } from '../postgres/database.js';
import { migrate } from '../postgres/migrations.js';
import { PgKeyStore } from '../postgres/pg-key-store.js';
import { PgLog } from '../postgres/pg-log.js';
import type { KeyStore } from '../store/key-store.js';
import { CliError, withDataDir } from './data-dir-access.js';

export const KEYS_USAGE = `  ticketing keys list [--json]                       list keys (secret keys by prefix only)
  ticketing keys create [--public|--secret] [--test] [--origins https://a.example,https://b.example] [--label TEXT] [--json]
  ticketing keys revoke <key id or prefix> [--json]`;

/**
 * The keys in PostgreSQL (TICKETING_DATABASE_URL): every instance looks a key up there on each request,
 * so a change made here holds on all of them at once, with no control socket.
 */
async function onDatabase<T>(
  database: DatabaseConfig,
  work: (keys: KeyStore, audit: AuditLog) => Promise<T>,
): Promise<T> {
  const db = await Database.connect({ ...database, pool: 2 }, { applicationName: 'ticketing-cli' });
  try {
    await migrate(db.sql);
    return await work(new PgKeyStore(db), new PgLog(db, 'audit'));
  } finally {
    await db.close();
  }
}

/**
 * ticketing keys list|create|revoke: in the database when the data is in PostgreSQL; else on the
 * running server when one holds the data directory, else on its files.
 */
export async function keysCommand(args: string[], dataDir: string, database?: DatabaseConfig): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      public: { type: 'boolean' },
      secret: { type: 'boolean' },
      test: { type: 'boolean' },
      origins: { type: 'string' },
      label: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [command, target] = positionals;
  const json = values.json ?? false;
  const out = (value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);

  if (command === 'list') {
    const keys = database
      ? await onDatabase(database, (store) => listKeys(store))
      : await withDataDir(
          dataDir,
          { create: false },
          {
            running: async () => (await controlJson<{ keys: KeyView[] }>(dataDir, 'GET', '/keys')).keys,
            stopped: ({ configStore }) => listKeys(new ConfigKeyStore(configStore)),
          },
        );
    out(
      keys,
      keys.length ? keys.map(describe).join('\n') : 'No keys yet. Create one with: ticketing keys create --public',
    );
    return 0;
  }
  if (command === 'create') {
    if (values.public && values.secret) throw new CliError('Choose --public or --secret, not both.');
    const input = {
      kind: values.secret ? 'secret' : 'public',
      mode: values.test ? 'test' : 'live',
      origins: (values.origins ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      label: values.label ?? null,
    };
    const made = database
      ? await onDatabase(database, (store, audit) => addKey(store, audit, input))
      : await withDataDir(
          dataDir,
          { create: true },
          {
            running: ({ dataDir: dir }) => controlJson<{ key: string; view: KeyView }>(dir, 'POST', '/keys', input),
            stopped: ({ configStore, audit }) => addKey(new ConfigKeyStore(configStore), audit, input),
          },
        );
    out({ ...made.view, key: made.key }, made.key);
    if (made.view.kind === 'secret' && !json)
      console.error('This secret key is shown once. It is stored only as a hash.');
    return 0;
  }
  if (command === 'revoke') {
    if (!target) throw new CliError('keys revoke needs a key id or prefix (see ticketing keys list).');
    let running = false;
    const revoked = database
      ? await onDatabase(database, async (store, audit) => (await revokeKey(store, audit, target)).view)
      : await withDataDir(
          dataDir,
          { create: false },
          {
            running: async ({ dataDir: dir }) => {
              running = true;
              return (await controlJson<{ view: KeyView }>(dir, 'POST', '/keys/revoke', { target })).view;
            },
            stopped: async ({ configStore, audit }) =>
              (await revokeKey(new ConfigKeyStore(configStore), audit, target)).view,
          },
        );
    out(revoked, `revoked ${revoked.id} (${revoked.prefix}…)`);
    if (!json)
      console.error(
        database
          ? 'Every server on this database refuses it from now on.'
          : running
            ? 'The running server refuses it from now on.'
            : 'The server refuses it when it starts.',
      );
    return 0;
  }
  console.error(`Usage:\n${KEYS_USAGE}`);
  return 2;
}

function describe(k: KeyView): string {
  const shown = k.kind === 'public' ? k.key : `${k.prefix}… (secret, stored as a hash)`;
  const state = k.revoked_at ? `revoked ${k.revoked_at}` : 'active';
  const origins = k.origins.length ? ` origins=${k.origins.join(',')}` : '';
  return `${k.id}  ${k.kind} ${k.mode}  ${state}  ${shown}${origins}${k.label ? `  "${k.label}"` : ''}`;
}
