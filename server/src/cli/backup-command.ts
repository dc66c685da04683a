import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupDataDir, verifyArchiveFile, writeArchiveFile } from '../backup/backup-file.js';
import type { Manifest } from '../backup/archive.js';
import { restoreArchive } from '../backup/restore.js';
import { controlRequest } from '../control/control-client.js';
import { VERSION } from '../version.js';
import { CliError, withDataDir } from './data-dir-access.js';

export const BACKUP_USAGE = `  ticketing backup <file.tar|file.tar.gz> [--json]     a consistent snapshot, while the server runs or not
  ticketing restore <file> <empty or new directory> [--json]`;

/** ticketing backup <file>: asks the running server for a snapshot, or takes it itself with the server stopped. */
export async function backupCommand(args: string[], dataDir: string): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [file] = positionals;
  if (!file || positionals.length > 1) return usage();
  const target = resolve(file);
  const result = await withDataDir<{ manifest: Manifest; pausedMs: number; server: number | null }>(
    dataDir,
    { create: false },
    {
      running: async ({ dataDir: dir, pid }) => {
        const res = await controlRequest(dir, 'GET', '/backup');
        await writeArchiveFile(res, target);
        return { manifest: await verifyArchiveFile(target), pausedMs: Number(res.headers['x-paused-ms']), server: pid };
      },
      stopped: async ({ dataDir: dir }) => ({ ...(await backupDataDir(dir, target, VERSION)), server: null }),
    },
  );
  const { manifest, pausedMs } = result;
  if (values.json) {
    console.log(
      JSON.stringify(
        { file: target, running_server: result.server, paused_ms: pausedMs, ...summary(manifest) },
        null,
        2,
      ),
    );
  } else {
    console.log(`Backed up ${describe(manifest)} to ${target}`);
    console.log(
      result.server
        ? `Taken by the running server (pid ${result.server}); writes waited ${pausedMs} ms. Every file matches its checksum.`
        : 'Taken with the server stopped. Every file matches its checksum.',
    );
  }
  return 0;
}

/** ticketing restore <file> <dir>: into an empty or new directory, every file checked against the manifest. */
export async function restoreCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [file, dir] = positionals;
  if (!file || !dir || positionals.length > 2) return usage();
  const target = resolve(dir);
  const existing = await stat(target).catch(() => undefined);
  if (existing && process.getuid && existing.uid !== process.getuid())
    throw new CliError(
      `${target} belongs to user id ${existing.uid}; run this as that user (for example sudo -u ticketing …).`,
    );
  const manifest = await restoreArchive(resolve(file), target);
  if (values.json) {
    console.log(JSON.stringify({ directory: target, ...summary(manifest) }, null, 2));
  } else {
    console.log(`Restored ${describe(manifest)} into ${target}`);
    console.log(`Every file matches its checksum. Start the server on it with TICKETING_DATA_DIR=${target}`);
  }
  return 0;
}

const summary = (m: Manifest) => ({
  created_at: m.created_at,
  server_version: m.server_version,
  data_format: m.data_format,
  counts: m.counts,
});

function describe(m: Manifest): string {
  const { tickets, attachments, outbox, files, bytes } = m.counts;
  const mb = (bytes / 1024 / 1024).toFixed(1);
  return `${tickets.live + tickets.test} tickets (live ${tickets.live}, test ${tickets.test}), ${attachments} attachments and ${outbox} queued deliveries (${files} files, ${mb} MB, taken ${m.created_at})`;
}

function usage() {
  console.error(`Usage:\n${BACKUP_USAGE}`);
  return 2;
}
