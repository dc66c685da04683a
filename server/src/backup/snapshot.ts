import { copyFile, link, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { TEMP_SUFFIX } from '../store/durable-write.js';
import { randomToken } from '../model/index.js';
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
  /** Milliseconds the gate was closed (writes waited at most this long), both closings together. */
  pausedMs: number;
  /** Removes the links; the data directory is untouched. */
  release(): Promise<void>;
}

/**
 * A point-in-time copy of the data directory without copying its bytes. Files are hard-linked into
 * a staging folder (copied where the file system has no hard links): ticket, config, outbox and
 * attachment files are replaced by rename, never rewritten in place, so a link keeps the content of
 * the moment it was made, and the append-only logs are read to their length at that moment.
 *
 * 1. With the write gate journalling the paths that change, every file is linked; writes go on.
 * 2. With the gate closed, just the paths written or removed meanwhile are linked again (or dropped)
 *    and the logs' lengths noted. That is the point in time; writes wait only for this step.
 */
export async function takeSnapshot(dataDir: string, now = Date.now): Promise<Snapshot> {
  const root = resolve(dataDir);
  const gate = openGate(root);
  const staging = join(root, LAYOUT.backups, `${STAGING_PREFIX}${randomToken(12)}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const logSizes = new Map<string, number>();
  let pausedMs: number;
  let journalling = false;
  try {
    // Closed for a moment, so that no write already under way escapes the journal.
    let started = now();
    await gate.closeWhile(async () => {
      gate.startJournal();
      journalling = true;
    });
    pausedMs = now() - started;
    await linkTree(root, root, staging);
    started = now();
    await gate.closeWhile(async () => {
      const changed = gate.stopJournal();
      journalling = false;
      await pool(changed, (path) => relink(root, path, staging));
      for (const name of await readdir(root)) {
        if (isAppendOnly(name) && !SKIP_TOP.has(name))
          logSizes.set(name, (await lstat(join(staging, name)).catch(() => undefined))?.size ?? 0);
      }
    });
    pausedMs += now() - started; // both closings, each with its wait for writes under way
    const files = await listTree(staging, staging);
    for (const f of files) f.size = logSizes.get(f.path) ?? f.size;
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { dir: staging, files, pausedMs, release: () => rm(staging, { recursive: true, force: true }) };
  } catch (err) {
    if (journalling) gate.stopJournal();
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Append-only files: read to their length at the snapshot. Every other file is replaced by rename. */
const isAppendOnly = (name: string) => name.endsWith('.jsonl');

/**
 * The ticket journals are written out as files before a snapshot (the server flushes its stores, an
 * offline backup settles them), so what they still hold is newer than the backup and is left out.
 */
const JOURNAL = /^(live|test)\/journal-\d+\.jsonl$/;

const skipped = (root: string, path: string) => {
  const rel = relative(root, path);
  return SKIP_TOP.has(rel.split(sep)[0]!) || path.endsWith(TEMP_SUFFIX) || JOURNAL.test(rel.split(sep).join('/'));
};

/** Links every file under `dir` into the staging folder, a folder at a time, 32 links at once. */
async function linkTree(root: string, dir: string, staging: string) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile: the journal has it
    throw err;
  }
  if (dir !== root) await mkdir(join(staging, relative(root, dir)), { recursive: true, mode: 0o700 });
  const files = entries.filter((e) => e.isFile() && !skipped(root, join(dir, e.name)));
  await pool(files, async (e) => {
    const path = join(dir, e.name);
    await linkOrCopy(path, join(staging, relative(root, path))).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err; // removed meanwhile: the journal has it
    });
  });
  // Sockets, symlinks and other special files are not data.
  for (const e of entries) {
    if (e.isDirectory() && !skipped(root, join(dir, e.name))) await linkTree(root, join(dir, e.name), staging);
  }
}

/** Makes the staging copy of one changed path (a file, or a folder removed whole) match the directory now. */
async function relink(root: string, path: string, staging: string) {
  if (skipped(root, path)) return;
  const target = join(staging, relative(root, path));
  await rm(target, { recursive: true, force: true });
  const info = await lstat(path).catch(() => undefined);
  if (info?.isFile()) {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await linkOrCopy(path, target);
  } else if (info?.isDirectory()) {
    await linkTree(root, path, staging);
  }
}

async function listTree(staging: string, dir: string): Promise<SnapshotFile[]> {
  const out: SnapshotFile[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listTree(staging, path)));
    else out.push({ path: relative(staging, path).split(sep).join('/'), size: 0 });
  }
  await pool(out, async (f) => {
    f.size = (await lstat(join(staging, f.path))).size;
  });
  return out;
}

/** Runs `work` over `items`, 32 at a time. */
async function pool<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(32, items.length) }, worker));
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
