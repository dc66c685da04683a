import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppendLog } from '../store/append-log.js';
import { writeFileDurable } from '../store/durable-write.js';
import { closeGate, openGate } from '../store/write-gate.js';
import { eventually } from '../test-support/receiver.js';
import { BackupError, MANIFEST_NAME } from './archive.js';
import { backupDataDir } from './backup-file.js';
import { restoreArchive } from './restore.js';
import { takeSnapshot } from './snapshot.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-restore-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

let n = 0;
const fresh = () => join(work, `case-${n++}`);
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

interface Entry {
  name: string;
  body?: string;
  type?: 'file' | 'symlink' | 'directory';
  linkname?: string;
}

/** A hand-made archive; `manifest` lists files as given (by default exactly the entries). */
async function archive(entries: Entry[], manifest?: { path: string; size: number; sha256: string }[], dataFormat = 1) {
  const pack = tar.pack();
  for (const e of entries) {
    if (e.type && e.type !== 'file') pack.entry({ name: e.name, type: e.type, linkname: e.linkname });
    else pack.entry({ name: e.name }, e.body ?? '');
  }
  const files =
    manifest ??
    entries.map((e) => ({ path: e.name, size: Buffer.byteLength(e.body ?? ''), sha256: sha(e.body ?? '') }));
  const m = {
    kind: 'ticketing-backup',
    archive_format: 1,
    data_format: dataFormat,
    server_version: '0.1.0',
    created_at: new Date().toISOString(),
    counts: { files: files.length, bytes: 0, tickets: { live: 0, test: 0 }, attachments: 0, outbox: 0 },
    files,
  };
  pack.entry({ name: MANIFEST_NAME }, JSON.stringify(m));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  const path = join(work, `archive-${n++}.tar`);
  await writeFile(path, Buffer.concat(chunks));
  return path;
}

const ticket = '{"id":"tkt_AAAAAAAAAAAAAAAAAAAA","replies":[]}';
const good = (): Entry[] => [
  { name: 'FORMAT', body: '1\n' },
  { name: 'config.json', body: '{}' },
  { name: 'live/tickets/tkt_AAAAAAAAAAAAAAAAAAAA.json', body: ticket },
];

async function refused(file: string, says: RegExp) {
  const target = fresh();
  await expect(restoreArchive(file, target)).rejects.toThrow(says);
  await expect(restoreArchive(file, target)).rejects.toBeInstanceOf(BackupError);
  expect(existsSync(target)).toBe(false); // nothing left behind
}

describe('restore', () => {
  it('restores a good archive, gzipped or not', async () => {
    const plain = await archive(good());
    const target = fresh();
    const manifest = await restoreArchive(plain, target);
    expect(manifest.files).toHaveLength(3);
    expect(await readFile(join(target, 'live/tickets/tkt_AAAAAAAAAAAAAAAAAAAA.json'), 'utf8')).toBe(ticket);
    const gz = `${plain}.gz`;
    await writeFile(gz, gzipSync(await readFile(plain)));
    await restoreArchive(gz, fresh());
  });

  it('refuses a file whose bytes do not match its checksum, and leaves nothing', async () => {
    const entries = good();
    const manifest = entries.map((e) => ({ path: e.name, size: e.body!.length, sha256: sha(e.body!) }));
    entries[2]!.body = ticket.replace('[]', '[1]').slice(0, ticket.length); // same size, other bytes
    await refused(await archive(entries, manifest), /tkt_AAAAAAAAAAAAAAAAAAAA.json" does not match its checksum/);
  });

  it('refuses files missing from the archive or from the manifest', async () => {
    const entries = good();
    const manifest = entries.map((e) => ({ path: e.name, size: e.body!.length, sha256: sha(e.body!) }));
    await refused(await archive(entries.slice(0, 2), manifest), /is in the manifest but missing from the archive/);
    await refused(await archive(entries, manifest.slice(0, 2)), /is in the archive but not in its manifest/);
  });

  it('refuses paths that climb out, absolute paths, links and devices: nothing is written outside', async () => {
    const outside = join(work, 'escaped');
    await refused(await archive([...good(), { name: '../escaped', body: 'x' }]), /unsafe path/);
    await refused(await archive([...good(), { name: 'live/../../escaped', body: 'x' }]), /unsafe path/);
    await refused(await archive([...good(), { name: `${outside}`, body: 'x' }]), /unsafe path/);
    await refused(
      await archive([...good(), { name: 'evil', type: 'symlink', linkname: '/etc/passwd' }]),
      /symlink entry/,
    );
    await refused(await archive([...good(), { name: 'live', type: 'directory' }]), /directory entry/);
    expect(existsSync(outside)).toBe(false);
  });

  it('refuses a cut-short archive, one without a manifest, and a newer data format', async () => {
    const whole = await readFile(await archive(good()));
    const cut = join(work, 'cut.tar');
    await writeFile(cut, whole.subarray(0, 1024 + 100));
    await refused(cut, /cut short|no manifest|cannot be read/);
    const pack = tar.pack();
    pack.entry({ name: 'FORMAT' }, '1\n');
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
    const bare = join(work, 'bare.tar');
    await writeFile(bare, Buffer.concat(chunks));
    await refused(bare, /no manifest: it is incomplete or not a Ticketing backup/);
    await refused(await archive(good(), undefined, 99), /data format 99; this Ticketing reads format 2 at most/);
    const notTar = join(work, 'not.tar');
    await writeFile(notTar, 'hello, this is not an archive'.repeat(40));
    await refused(notTar, /cannot be read|no manifest/);
  });

  it('refuses a directory that is not empty, and leaves its contents alone', async () => {
    const target = fresh();
    await mkdir(target);
    await writeFile(join(target, 'mine.txt'), 'keep me');
    await expect(restoreArchive(await archive(good()), target)).rejects.toThrow(/is not empty/);
    expect(await readdir(target)).toEqual(['mine.txt']);
    // An empty directory is fine (a mount point, a directory made by systemd).
    const empty = fresh();
    await mkdir(empty);
    await restoreArchive(await archive(good()), empty);
    expect((await readdir(empty)).sort()).toEqual(['FORMAT', 'config.json', 'live']);
  });
});

describe('snapshots', () => {
  it('hold writes at the gate while linking, and keep an append-only log at its length of that moment', async () => {
    const dir = fresh();
    await mkdir(dir);
    const gate = openGate(dir);
    try {
      await writeFileDurable(join(dir, 'config.json'), 'v1');
      const log = await AppendLog.open<{ n: number }>(join(dir, 'audit.jsonl'));
      await log.append({ n: 1 });
      let release!: () => void;
      const holding = gate.closeWhile(() => new Promise<void>((ok) => (release = ok)));
      // While the gate is closed a write waits; it is not refused.
      let written = false;
      const write = writeFileDurable(join(dir, 'config.json'), 'v2').then(() => (written = true));
      await eventually(() => gate.waiting === 1, 5000, 'the write to reach the closed gate');
      expect(written).toBe(false);
      expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe('v1');
      release();
      await holding;
      await write;
      expect(written).toBe(true);

      const snapshot = await takeSnapshot(dir);
      // Later writes do not reach the snapshot: a replaced file keeps its old inode there, the log its length.
      await writeFileDurable(join(dir, 'config.json'), 'v3');
      await log.append({ n: 2 });
      expect(await readFile(join(snapshot.dir, 'config.json'), 'utf8')).toBe('v2');
      expect(snapshot.files.find((f) => f.path === 'audit.jsonl')!.size).toBe('{"n":1}\n'.length);
      await snapshot.release();
      expect(existsSync(snapshot.dir)).toBe(false);
      await log.close();

      // The backup made through the same code holds the later state.
      const file = join(work, 'gate.tar');
      const { manifest } = await backupDataDir(dir, file, '0.1.0');
      expect(manifest.files.find((f) => f.path === 'config.json')!.sha256).toBe(sha('v3'));
      expect(manifest.files.find((f) => f.path === 'audit.jsonl')!.size).toBe('{"n":1}\n{"n":2}\n'.length);
    } finally {
      closeGate(dir);
    }
  });
});
