#!/usr/bin/env node
import { BackupError } from './backup/archive.js';
import { BACKUP_USAGE, backupCommand, restoreCommand } from './cli/backup-command.js';
import { AGENTS_USAGE, agentsCommand } from './cli/agents-command.js';
import { CliError } from './cli/data-dir-access.js';
import { KEYS_USAGE, keysCommand } from './cli/keys-command.js';
import { MIGRATE_USAGE, migrateCommand } from './cli/migrate-command.js';
import { ConfigError, loadConfig } from './config/config.js';
import { ControlError } from './control/control-client.js';
import { KeyCommandError } from './keys/commands.js';
import { LockError } from './store/lock.js';
import { StartupError } from './store/startup-error.js';

const USAGE = `Usage:
  ticketing start                                   start the server (same as node dist/main.js)
${KEYS_USAGE}
${AGENTS_USAGE}
${BACKUP_USAGE}
${MIGRATE_USAGE}

The data directory is TICKETING_DATA_DIR (default ./data). While a server runs on it, the commands
go through its control socket (data/control.sock) and take effect at once; with no server they work
on the files. Run them as the user the server runs as.`;

async function run(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'start') {
    // Imported only here: the other commands start without loading the server.
    await (await import('./serve.js')).serve();
    return 0;
  }
  if (command === 'restore') return restoreCommand(rest);
  if (command === 'migrate') return migrateCommand(rest, loadConfig().dataDir);
  if (command === 'keys' || command === 'backup' || command === 'agents') {
    const { dataDir, database } = loadConfig();
    if (command === 'keys') return keysCommand(rest, dataDir, database);
    if (command === 'agents') return agentsCommand(rest, dataDir, database);
    // A backup is of a data directory, which a server on PostgreSQL does not read.
    if (database)
      throw new CliError(
        'ticketing backup works on a data directory; with TICKETING_DATABASE_URL the data is in PostgreSQL: back it up with pg_dump (docs/deploy.md, "PostgreSQL").',
      );
    return backupCommand(rest, dataDir);
  }
  console.error(USAGE);
  return command === 'help' || command === '--help' ? 0 : 2;
}

run().then(
  (code) => {
    if (code) process.exitCode = code;
  },
  (err: unknown) => {
    const known = [ConfigError, LockError, StartupError, CliError, BackupError, KeyCommandError, ControlError];
    if (known.some((type) => err instanceof type)) {
      console.error((err as Error).message);
    } else if ((err as NodeJS.ErrnoException).syscall) {
      console.error(`${(err as Error).message}`); // a file the command could not read or write: the path says which
    } else if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`${(err as Error).message}\n${USAGE}`);
      process.exitCode = 2;
      return;
    } else {
      throw err;
    }
    process.exitCode = 1;
  },
);
