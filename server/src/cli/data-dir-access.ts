import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppendLog } from '../store/append-log.js';
import type { AuditEntry, AuditLog } from '../audit/audit.js';
import { controlJson } from '../control/control-client.js';
import { prepareDataDir } from '../datadir/prepare.js';
import { openConfigFile } from '../store/config-file.js';
import type { ConfigStore } from '../store/config-store.js';
import { acquireLock, LockError } from '../store/lock.js';
import { closeGate, openGate } from '../store/write-gate.js';
import { VERSION } from '../version.js';

/** A reason a command stopped; the CLI prints the message alone and exits 1. */
export class CliError extends Error {}

export interface Stopped {
  dataDir: string;
  configStore: ConfigStore;
  audit: AuditLog;
}

export interface Running {
  dataDir: string;
  pid: number;
}

/**
 * Runs a command on a data directory: through the running server's control socket when a server
 * holds the directory (so a change takes effect in it at once), or on the files themselves, with the
 * lock held, when no server runs. Either way the command sees the same data and makes the same change.
 */
export async function withDataDir<T>(
  dataDirOption: string,
  options: { create: boolean },
  commands: { running(server: Running): Promise<T>; stopped(dir: Stopped): Promise<T> },
): Promise<T> {
  const dataDir = resolve(dataDirOption);
  const info = await stat(dataDir).catch(() => undefined);
  if (!info) {
    if (!options.create) throw new CliError(`There is no data directory at ${dataDir} (TICKETING_DATA_DIR).`);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
  } else if (!info.isDirectory()) {
    throw new CliError(`${dataDir} is not a directory (TICKETING_DATA_DIR).`);
  }

  let lock;
  try {
    lock = acquireLock(dataDir);
  } catch (err) {
    if (!(err instanceof LockError)) throw err;
    const status = await controlJson<{ pid: number }>(dataDir, 'GET', '/status').catch((e: NodeJS.ErrnoException) => {
      throw new CliError(
        `${err.message.replace(/ Stop it first.*$/, '')} Its control socket (${join(dataDir, 'control.sock')}) does not answer (${e.code ?? e.message}).`,
      );
    });
    return commands.running({ dataDir, pid: status.pid });
  }

  try {
    // With the server stopped the CLI writes the files itself: as their owner, or the server could
    // not read them afterwards (a root-owned config.json in a directory the service user owns).
    const owner = (await stat(dataDir)).uid;
    if (process.getuid && owner !== process.getuid())
      throw new CliError(
        `${dataDir} belongs to user id ${owner}; run this as that user (for example sudo -u ticketing …) so the files stay theirs.`,
      );
    openGate(dataDir);
    try {
      await prepareDataDir(dataDir, { serverVersion: VERSION, print: (line) => process.stderr.write(`${line}\n`) });
      const configStore = await openConfigFile(dataDir);
      const audit = await AppendLog.open<AuditEntry>(join(dataDir, 'audit.jsonl'));
      try {
        return await commands.stopped({ dataDir, configStore, audit });
      } finally {
        await audit.close();
      }
    } finally {
      closeGate(dataDir);
    }
  } finally {
    lock.release();
  }
}
