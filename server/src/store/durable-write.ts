import { mkdir, open, rename, unlink, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { faultPoint } from './faults.js';
import { randomToken } from '../model/index.js';
import { gated } from './write-gate.js';

export const TEMP_SUFFIX = '.tmp';

/**
 * Every folder the server creates is its owner's only (0700), like the files in it (0600): tickets,
 * files, queued mail and keys are nobody else's business on a shared machine. Parents it has to
 * create on the way get the same mode.
 */
const DIR_MODE = 0o700;
export const makeDir = (path: string) => mkdir(path, { recursive: true, mode: DIR_MODE });

/**
 * Writes `data` to `path` so that a crash leaves either the old file or the new one, never half:
 * temp file, fsync, rename over the target, fsync of the directory (so the rename itself is on disk).
 * Through the write gate, so a backup sees the write whole or not at all.
 */
export function writeFileDurable(path: string, data: string | Uint8Array): Promise<void> {
  return gated(path, async () => {
    await writeAndRename(path, data);
    await syncDir(dirname(path));
  });
}

/**
 * The same for many files of one directory at once, as a checkpoint writes them: the temp files
 * written and fsynced side by side (the file system commits concurrent fsyncs together), renamed,
 * then one fsync of the directory for all the renames. `null` removes a file. A failure leaves each
 * file whole, old or new, and no temp file. Each file passes the write gate, so a backup taken
 * meanwhile links its new version.
 */
export async function writeFilesDurable(dir: string, files: { path: string; data: string | null }[]) {
  const AT_ONCE = 32;
  for (let i = 0; i < files.length; i += AT_ONCE)
    await Promise.all(
      files.slice(i, i + AT_ONCE).map(({ path, data }) =>
        gated(path, async () => {
          if (data !== null) return writeAndRename(path, data);
          try {
            faultPoint('unlink', path);
            await unlink(path);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          }
        }),
      ),
    );
  await syncDir(dir);
}

/** Temp file, fsync, rename over the target: durable once the directory is fsynced. */
async function writeAndRename(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.${randomToken(8)}${TEMP_SUFFIX}`;
  faultPoint('open', temp);
  const handle = await open(temp, 'w', 0o600);
  try {
    faultPoint('write', temp);
    await handle.writeFile(data);
    faultPoint('fsync', temp);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
  await handle.close();
  try {
    faultPoint('rename', path);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Removes a file and makes the removal durable. Missing files are fine. */
export function unlinkDurable(path: string): Promise<void> {
  return gated(path, () => unlinkAndSync(path));
}

async function unlinkAndSync(path: string): Promise<void> {
  try {
    faultPoint('unlink', path);
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  await syncDir(dirname(path));
}

/**
 * Makes a rename (or unlink) in `dir` durable. Called concurrently, the fsyncs overlap and the
 * file system commits them together (ext4's journal batches concurrent fsyncs into one commit);
 * serialising them here in user space measured half as fast.
 */
export const syncDir = (dir: string): Promise<void> => fsyncDir(dir);

async function fsyncDir(dir: string): Promise<void> {
  faultPoint('fsync-dir', dir);
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes temp files that a crash left behind in `dir` (never the real files). */
export async function removeStaleTemps(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX)) {
      await unlink(join(dir, name)).catch(() => {});
      removed++;
    }
  }
  return removed;
}
