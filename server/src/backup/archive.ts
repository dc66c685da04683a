import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { z } from 'zod';
import { LAYOUT } from '../store/layout.js';
import type { Snapshot } from './snapshot.js';

/** The last entry of every archive: what it holds, with a SHA-256 per file. */
export const MANIFEST_NAME = 'BACKUP-MANIFEST.json';
const ARCHIVE_FORMAT = 1;

/** A reason a backup or a restore stopped; the CLI prints the message alone. */
export class BackupError extends Error {}

const ManifestSchema = z.object({
  kind: z.literal('ticketing-backup'),
  archive_format: z.number().int(),
  data_format: z.number().int().nullable(),
  server_version: z.string(),
  created_at: z.string(),
  counts: z.object({
    files: z.number().int(),
    bytes: z.number().int(),
    tickets: z.object({ live: z.number().int(), test: z.number().int() }),
    attachments: z.number().int(),
    outbox: z.number().int(),
  }),
  files: z.array(
    z.object({ path: z.string(), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  ),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** What the manifest counts, from the paths alone. */
function countFiles(files: { path: string; size: number }[]): Manifest['counts'] {
  const matching = (re: RegExp) => files.filter((f) => re.test(f.path)).length;
  return {
    files: files.length,
    bytes: files.reduce((n, f) => n + f.size, 0),
    tickets: { live: matching(/^live\/tickets\/[^/]+\.json$/), test: matching(/^test\/tickets\/[^/]+\.json$/) },
    attachments: matching(/^(live|test)\/files\/[^/]+\/[^/]+$/),
    outbox: matching(/^outbox\/[^/]+\.json$/),
  };
}

/**
 * The snapshot as a tar stream (ustar, readable by any tar): each file with exactly the size noted at
 * the snapshot, hashed as it streams, then the manifest. Not compressed: the caller gzips if it wants.
 */
export function packSnapshot(snapshot: Snapshot, meta: { serverVersion: string; createdAt: Date }): Readable {
  const pack = tar.pack();
  void (async () => {
    const hashed: Manifest['files'] = [];
    let dataFormat: number | null = null;
    for (const file of snapshot.files) {
      const hash = createHash('sha256');
      const entry = pack.entry({ name: file.path, size: file.size, mode: 0o600, mtime: meta.createdAt });
      const written = new Promise<void>((ok, fail) => entry.once('finish', ok).once('error', fail));
      if (file.size > 0) {
        // Exactly `size` bytes: an append-only log may have grown since the snapshot.
        const source = createReadStream(join(snapshot.dir, file.path), { start: 0, end: file.size - 1 });
        for await (const chunk of source as AsyncIterable<Buffer>) {
          hash.update(chunk);
          if (file.path === LAYOUT.format) dataFormat = Number(chunk.toString('utf8').trim());
          if (!entry.write(chunk)) await once(entry, 'drain');
        }
      }
      (entry as NodeJS.WritableStream).end();
      await written;
      hashed.push({ path: file.path, size: file.size, sha256: hash.digest('hex') });
    }
    const manifest: Manifest = {
      kind: 'ticketing-backup',
      archive_format: ARCHIVE_FORMAT,
      data_format: dataFormat,
      server_version: meta.serverVersion,
      created_at: meta.createdAt.toISOString(),
      counts: countFiles(hashed),
      files: hashed,
    };
    pack.entry({ name: MANIFEST_NAME, mode: 0o600, mtime: meta.createdAt }, `${JSON.stringify(manifest, null, 1)}\n`);
    pack.finalize();
  })().catch((err: unknown) => pack.destroy(err as Error));
  return pack as unknown as Readable;
}

// A path the data directory can hold: relative, forward slashes, no "..", no hidden or odd names.
const SAFE_PATH = /^(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,254}\/){0,8}[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$/;

/**
 * Reads an archive (gzipped or not: the magic bytes decide), calling `onFile` for each file with its
 * bytes, and checks every file against the manifest: the same set of paths, sizes and SHA-256s. Only
 * plain files with safe relative names are accepted; anything else stops the read. Returns the manifest.
 */
export async function readArchive(
  input: Readable,
  onFile: (path: string, chunks: AsyncIterable<Buffer>) => Promise<void>,
): Promise<Manifest> {
  const extract = tar.extract();
  const source = await gunzipIfNeeded(input);
  source.on('error', (err) => extract.destroy(err));
  source.pipe(extract);
  const seen = new Map<string, { size: number; sha256: string }>();
  let manifest: Manifest | undefined;
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      if (manifest) throw new BackupError(`The archive has an entry after its manifest (${clip(name)}).`);
      if (type !== 'file')
        throw new BackupError(
          `The archive holds a ${type ?? 'special'} entry (${clip(name)}); a backup holds files only.`,
        );
      if (name === MANIFEST_NAME) {
        const chunks: Buffer[] = [];
        for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
        const parsed = ManifestSchema.safeParse(safeJson(Buffer.concat(chunks).toString('utf8')));
        if (!parsed.success) throw new BackupError('The archive’s manifest is damaged.');
        manifest = parsed.data;
        continue;
      }
      if (!SAFE_PATH.test(name) || name.split('/').some((part) => part === '..' || part === '.'))
        throw new BackupError(`The archive holds an unsafe path (${clip(name)}).`);
      if (seen.has(name)) throw new BackupError(`The archive holds ${clip(name)} twice.`);
      const hash = createHash('sha256');
      let bytes = 0;
      async function* counted() {
        for await (const c of entry as AsyncIterable<Buffer>) {
          hash.update(c);
          bytes += c.length;
          yield c;
        }
      }
      await onFile(name, counted());
      if (bytes !== size) throw new BackupError(`The archive is cut short in ${clip(name)}.`);
      seen.set(name, { size: bytes, sha256: hash.digest('hex') });
    }
  } catch (err) {
    source.unpipe(extract);
    source.destroy();
    // Our own verdicts, and the caller's file-system errors, pass as they are; the rest is the archive.
    if (err instanceof BackupError || (err as NodeJS.ErrnoException).syscall) throw err;
    throw new BackupError(`The archive cannot be read: ${(err as Error).message}.`);
  }
  if (!manifest) throw new BackupError('The archive has no manifest: it is incomplete or not a Ticketing backup.');
  if (manifest.archive_format > ARCHIVE_FORMAT)
    throw new BackupError(
      `The archive is format ${manifest.archive_format}; this Ticketing reads format ${ARCHIVE_FORMAT}. Use a newer Ticketing.`,
    );
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  for (const [path, got] of seen) {
    const want = listed.get(path);
    if (!want) throw new BackupError(`${clip(path)} is in the archive but not in its manifest.`);
    if (want.size !== got.size || want.sha256 !== got.sha256)
      throw new BackupError(`${clip(path)} does not match its checksum in the manifest.`);
  }
  const missing = manifest.files.find((f) => !seen.has(f.path));
  if (missing) throw new BackupError(`${clip(missing.path)} is in the manifest but missing from the archive.`);
  return manifest;
}

async function gunzipIfNeeded(input: Readable): Promise<Readable> {
  // Peek at the first two bytes: 1f 8b is gzip.
  const first: Buffer | null = await new Promise((ok, fail) => {
    const onReadable = () => {
      cleanup();
      ok((input.read(2) as Buffer | null) ?? (input.read() as Buffer | null));
    };
    const onEnd = () => {
      cleanup();
      ok(null);
    };
    const onError = (err: Error) => {
      cleanup();
      fail(new BackupError(`The archive cannot be read: ${err.message}.`));
    };
    const cleanup = () => {
      input.off('readable', onReadable);
      input.off('end', onEnd);
      input.off('error', onError);
    };
    input.on('readable', onReadable);
    input.on('end', onEnd);
    input.on('error', onError);
  });
  if (!first) throw new BackupError('The archive is empty.');
  input.unshift(first);
  if (first[0] === 0x1f && first[1] === 0x8b) {
    const gunzip = createGunzip();
    input.on('error', (err) => gunzip.destroy(err));
    return input.pipe(gunzip);
  }
  return input;
}

const clip = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
