import { copyFile, link, lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { TEMP_SUFFIX } from '../store/durable-write.js';
import { isId, randomToken } from '../model/index.js';
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
  /** The moment the snapshot holds: the second closing of the gate (the manifest's created_at). */
  cutAt: Date;
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
 * 2. With the gate closed, just the paths written or removed meanwhile are linked again (or dropped),
 *    the ticket journals linked and every log's length noted. That is the point in time, for every
 *    file alike (issue 33: tickets were cut at a flush before the rest); writes wait only for this.
 * 3. With writes going on, what the journals held at the cut is written into the staging folder as
 *    ticket files (never through a link: a new file each), so the archive is plain files.
 *
 * A ticket's attachments and its journal entry are written in one pass of the gate, and an audit
 * entry or a queued delivery only after the ticket is acknowledged, so the cut never holds an
 * attachment or an audit entry without its ticket.
 */
export async function takeSnapshot(
  dataDir: string,
  clock: () => Date = () => new Date(),
  now = () => performance.now(),
): Promise<Snapshot> {
  const root = resolve(dataDir);
  const gate = openGate(root);
  const staging = join(root, LAYOUT.backups, `${STAGING_PREFIX}${randomToken(12)}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const logSizes = new Map<string, number>();
  let pausedMs: number;
  let cutAt!: Date;
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
      for (const mode of MODES) {
        const journals = await linkJournals(root, mode, staging);
        for (const [path, size] of journals) logSizes.set(path, size);
      }
      cutAt = clock();
    });
    pausedMs += now() - started; // both closings, each with its wait for writes under way
    for (const mode of MODES) await writeOutJournals(staging, mode, logSizes);
    const files = await listTree(staging, staging);
    for (const f of files) f.size = logSizes.get(f.path) ?? f.size;
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      dir: staging,
      files,
      pausedMs: Math.round(pausedMs),
      cutAt,
      release: () => rm(staging, { recursive: true, force: true }),
    };
  } catch (err) {
    if (journalling) gate.stopJournal();
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Append-only files: read to their length at the snapshot. Every other file is replaced by rename. */
const isAppendOnly = (name: string) => name.endsWith('.jsonl');

/** The ticket journals (store/journal.ts): linked at the cut, then written out as ticket files. */
const JOURNAL = /^(live|test)\/journal-\d+\.jsonl$/;
const JOURNAL_NAME = /^journal-\d{12}\.jsonl$/;
const MODES = ['live', 'test'] as const;

/** Links the journal files of `mode` as they are at the cut (with the gate closed); their paths and lengths. */
async function linkJournals(root: string, mode: string, staging: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const names = await readdir(join(root, mode)).catch(() => [] as string[]);
  for (const name of names.filter((n) => JOURNAL_NAME.test(n))) {
    const target = join(staging, mode, name);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rm(target, { force: true });
    await linkOrCopy(join(root, mode, name), target);
    sizes.set(`${mode}/${name}`, (await lstat(target)).size);
  }
  return sizes;
}

/**
 * Writes what the linked journals of `mode` held at the cut (their noted lengths, oldest first) into
 * the staging folder as ticket files, as a checkpoint would, and removes the journals from it. A
 * staged file is replaced, never written into: it may be a link to the data directory's own file.
 */
async function writeOutJournals(staging: string, mode: string, sizes: Map<string, number>) {
  const journals = [...sizes.keys()].filter((p) => p.startsWith(`${mode}/`) && JOURNAL.test(p)).sort();
  const latest = new Map<string, string | null>();
  for (const path of journals) {
    const bytes = (await readFile(join(staging, path))).subarray(0, sizes.get(path));
    for (const line of bytes.toString('utf8').split('\n')) {
      if (!line) continue;
      let record: { ticket?: { id?: unknown }; removed?: unknown };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        continue; // the torn end of a batch a crash interrupted: never acknowledged
      }
      if (typeof record.ticket?.id === 'string') latest.set(record.ticket.id, JSON.stringify(record.ticket));
      else if (typeof record.removed === 'string') latest.set(record.removed, null);
    }
    await rm(join(staging, path), { force: true });
    sizes.delete(path);
  }
  if (!latest.size) return;
  await mkdir(join(staging, mode, 'tickets'), { recursive: true, mode: 0o700 });
  await pool([...latest], async ([id, text]) => {
    if (!isId('tkt', id)) return; // never a path out of the folder
    const file = join(staging, mode, 'tickets', `${id}.json`);
    await rm(file, { force: true });
    if (text !== null) await writeFile(file, text, { mode: 0o600, flag: 'wx' });
    else await rm(join(staging, mode, 'files', id), { recursive: true, force: true });
  });
}

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
