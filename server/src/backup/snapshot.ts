import { copyFile, link, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { TEMP_SUFFIX } from '../store/durable-write.js';
import { randomToken } from '../store/ids.js';
import { LAYOUT } from '../store/layout.js';
import { openGate } from '../store/write-gate.js';

const STAGING_PREFIX = '.snapshot-';

/**
 * What a snapshot leaves out: the lock and the control socket (they belong to the running process),
 * /ready's probe, temp files of writes in flight, and the backups folder (backups of backups).
 */
const SKIP_TOP = new Set<string>([LAYOUT.lock, LAYOUT.controlSocket, LAYOUT.readyProbe, LAYOUT.backups]);

export interface SnapshotFile {
  /** Relative to the data directory, with forward slashes. */
  path: string;
  size: number;
}

export interface Snapshot {
  /** Where the linked files are: read `size` bytes of each (logs may grow past it afterwards). */
  dir: string;
  files: SnapshotFile[];
  /** Milliseconds the data directory's writes waited. */
  pausedMs: number;
  /** Removes the links; the data directory is untouched. */
  release(): Promise<void>;
}

/**
 * A point-in-time copy of the data directory without copying its bytes: with writes paused at the
 * write gate, every file is hard-linked into a staging folder (a copy where the file system has no
 * hard links), and each size noted. Ticket, config, outbox and attachment files are replaced by
 * rename, never rewritten in place, so the linked inode keeps the content of that moment; the
 * append-only logs keep their first `size` bytes. Writes wait only while the links are made.
 */
export async function takeSnapshot(dataDir: string, now = Date.now): Promise<Snapshot> {
  const root = resolve(dataDir);
  const staging = join(root, LAYOUT.backups, `${STAGING_PREFIX}${randomToken(12)}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const files: SnapshotFile[] = [];
  let pausedMs = 0;
  try {
    await openGate(root).closeWhile(async () => {
      const started = now();
      await linkTree(root, root, staging, files);
      pausedMs = now() - started;
    });
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    dir: staging,
    files,
    pausedMs,
    release: () => rm(staging, { recursive: true, force: true }),
  };
}

async function linkTree(root: string, dir: string, staging: string, out: SnapshotFile[]) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // a ticket's files removed with it
    throw err;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    const rel = relative(root, path);
    if (dir === root && SKIP_TOP.has(e.name)) continue;
    if (e.name.endsWith(TEMP_SUFFIX)) continue;
    if (e.isDirectory()) {
      await linkTree(root, path, staging, out);
    } else if (e.isFile()) {
      const target = join(staging, rel);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      try {
        await linkOrCopy(path, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile (not through the gate)
        throw err;
      }
      out.push({ path: rel.split(sep).join('/'), size: (await lstat(target)).size });
    }
    // Sockets, symlinks and other special files are not data.
  }
}

async function linkOrCopy(from: string, to: string) {
  try {
    await link(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK' && code !== 'EOPNOTSUPP')
      throw err;
    await copyFile(from, to);
  }
}

/** Removes snapshot folders that a killed backup left behind (called at start, with the lock held). */
export async function removeStaleSnapshots(dataDir: string) {
  const dir = join(resolve(dataDir), LAYOUT.backups);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names)
    if (name.startsWith(STAGING_PREFIX)) await rm(join(dir, name), { recursive: true, force: true });
}
