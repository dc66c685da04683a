import { FileTicketStore } from '../store/file-ticket-store.js';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { syncDir } from '../store/durable-write.js';
import { randomToken } from '../model/index.js';
import { packSnapshot, readArchive, type Manifest } from './archive.js';
import { takeSnapshot } from './snapshot.js';

/** Archives named .gz or .tgz are gzipped; others are plain tar. */
const wantsGzip = (file: string) => /\.(t?gz)$/i.test(file);

/**
 * Writes an archive stream to `file` whole or not at all: into a temp file beside it, fsynced, then
 * renamed over `file`. An interrupted backup never leaves a file that looks like a finished one.
 */
export async function writeArchiveFile(archive: Readable, file: string): Promise<void> {
  const target = resolve(file);
  const temp = join(dirname(target), `.${basename(target)}.${randomToken(8)}.partial`);
  try {
    const out = createWriteStream(temp, { mode: 0o600, flags: 'wx' });
    await (wantsGzip(target) ? pipeline(archive, createGzip(), out) : pipeline(archive, out));
    const handle = await open(temp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncDir(dirname(target));
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Reads an archive file back and checks every file against its manifest; returns the manifest. */
export function verifyArchiveFile(file: string): Promise<Manifest> {
  return readArchive(createReadStream(file), async (_path, chunks) => {
    for await (const _ of chunks); // hashed and counted by readArchive
  });
}

/**
 * Backs up a data directory that this process owns (the server, or the CLI with the server stopped):
 * snapshot, archive, verify. The running server does the same for the CLI over its control socket.
 */
export async function backupDataDir(
  dataDir: string,
  file: string,
  serverVersion: string,
): Promise<{ manifest: Manifest; pausedMs: number }> {
  // With the server stopped (the caller holds the lock), a journal left by a crash becomes files first.
  await Promise.all([FileTicketStore.settle(dataDir, 'live'), FileTicketStore.settle(dataDir, 'test')]);
  const snapshot = await takeSnapshot(dataDir);
  try {
    await writeArchiveFile(packSnapshot(snapshot, { serverVersion, createdAt: snapshot.cutAt }), file);
  } finally {
    await snapshot.release();
  }
  return { manifest: await verifyArchiveFile(file), pausedMs: snapshot.pausedMs };
}
