import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { DatabaseConfig } from '../config/config.js';
import { controlJson, ControlError } from '../control/control-client.js';
import { Database } from '../postgres/database.js';
import { migrate } from '../postgres/migrations.js';
import { PgConfigStore } from '../postgres/pg-config-store.js';
import { PgLog } from '../postgres/pg-log.js';
import { PgSessionStore } from '../postgres/pg-session-store.js';
import { AgentNotFoundError, resetPasswordCommand } from '../sessions/reset-password.js';
import { FileSessionStore } from '../store/file-session-store.js';
import { CliError, withDataDir } from './data-dir-access.js';

export const AGENTS_USAGE = `  ticketing agents reset-password <email> [--json]   a new one-time password for an agent (their sessions and passkeys end)`;

type Reset = { email: string; password: string; passkeys_removed: number };

/**
 * ticketing agents reset-password: in the database when the data is in PostgreSQL; else through the
 * running server when one holds the data directory, else on its files.
 */
export async function agentsCommand(args: string[], dataDir: string, database?: DatabaseConfig): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [command, email] = positionals;
  if (command !== 'reset-password' || !email) {
    console.error(`Usage:\n${AGENTS_USAGE}`);
    return 2;
  }
  let reset: Reset;
  try {
    reset = database
      ? await onDatabase(database, email)
      : await withDataDir(
          dataDir,
          { create: false },
          {
            running: ({ dataDir: dir }) => controlJson<Reset>(dir, 'POST', '/agents/reset-password', { email }),
            stopped: async ({ dataDir: dir, configStore, audit }) =>
              resetPasswordCommand({ configStore, audit, sessions: await FileSessionStore.open(dir) }, email),
          },
        );
  } catch (err) {
    if (err instanceof AgentNotFoundError || (err instanceof ControlError && err.code === 'agent_not_found'))
      throw new CliError(err.message);
    throw err;
  }
  if (values.json) console.log(JSON.stringify({ ...reset, must_change_password: true }, null, 2));
  else {
    console.log(reset.password);
    console.error(
      `The one-time password of ${reset.email}, shown once. It works for one sign-in at /console/; the agent then chooses their own.`,
    );
    // Said plainly: the agent must add their passkeys again, and whoever added one behind their back lost it.
    console.error(
      `Their sessions ended, and their passkeys were removed (${reset.passkeys_removed}): they add them again after signing in.`,
    );
  }
  return 0;
}

async function onDatabase(database: DatabaseConfig, email: string): Promise<Reset> {
  const db = await Database.connect({ ...database, pool: 2 }, { applicationName: 'ticketing-cli' });
  try {
    await migrate(db.sql);
    const configStore = await PgConfigStore.open(db, pino({ level: 'silent' }));
    try {
      return await resetPasswordCommand(
        { configStore, sessions: new PgSessionStore(db), audit: new PgLog(db, 'audit') },
        email,
      );
    } finally {
      await configStore.close();
    }
  } finally {
    await db.close();
  }
}
