import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DATA_FORMAT } from '../store/data-format.js';
import { syncDir } from '../store/durable-write.js';
import { BackupError, readArchive, type Manifest } from './archive.js';

/**
 * Restores an archive into `target`, which must be empty or not exist yet: a restore never mixes a
 * backup with other data. Every file is checked against the manifest (paths, sizes, SHA-256s) and
 * made durable before this resolves; on any failure what was written is removed again and the
 * directory is left as it was found.
 */
export async function restoreArchive(archive: string, target: string): Promise<Manifest> {
  const root = resolve(target);
  const existed = await stat(root).then(
    (s) => {
      if (!s.isDirectory()) throw new BackupError(`${root} is not a directory.`);
      return true;
    },
    () => false,
  );
  if (existed && (await readdir(root)).length > 0)
    throw new BackupError(`${root} is not empty; restore into an empty or a new directory.`);
  await stat(archive).catch(() => {
    throw new BackupError(`There is no archive at ${archive}.`);
  });
  await mkdir(root, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  const dirs = new Set<string>([root]);
  try {
    const manifest = await readArchive(createReadStream(archive), async (path, chunks) => {
      const file = join(root, path);
      for (let d = dirname(file); d.length > root.length; d = dirname(d)) dirs.add(d);
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      // 'wx': never over a file that is there already (the archive names each path once).
      const handle = await open(file, 'wx', 0o600);
      written.push(file);
      try {
        for await (const chunk of chunks) await handle.write(chunk);
      } finally {
        await handle.close();
      }
    });
    if (manifest.data_format !== null && manifest.data_format > DATA_FORMAT)
      throw new BackupError(
        `The backup holds data format ${manifest.data_format}; this Ticketing reads format ${DATA_FORMAT} at most. Restore it with a newer Ticketing.`,
      );
    // Durable before this resolves: the files (many fsyncs at once, which the file system commits
    // together), then the directories that name them, deepest first.
    let next = 0;
    const syncFiles = async () => {
      while (next < written.length) {
        const handle = await open(written[next++]!, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, syncFiles));
    for (const d of [...dirs].sort((a, b) => b.length - a.length)) await syncDir(d);
    return manifest;
  } catch (err) {
    if (existed) for (const name of await readdir(root)) await rm(join(root, name), { recursive: true, force: true });
    else await rm(root, { recursive: true, force: true });
    throw err;
  }
}
