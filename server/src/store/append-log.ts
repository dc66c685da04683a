import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomToken } from '../model/index.js';
import { syncDir, TEMP_SUFFIX } from './durable-write.js';
import type { LogStore } from './log-store.js';
import { readLines } from './read-lines.js';
import { exclusively, gated } from './write-gate.js';

const KEEP_IN_MEMORY = 500; // the most a log read may ask for

/**
 * An append-only JSON-lines file (audit.jsonl, webhook_log.jsonl, outbox_log.jsonl). Each append is fsynced before it
 * resolves. Appends that arrive while a write is on its way share the next write and fsync (group
 * commit): under load one fsync covers many entries instead of one each. The newest 500 entries are
 * kept in memory, so reads never scan the file; a torn last line from a crash is skipped on open.
 */
export class AppendLog<T> implements LogStore<T> {
  private recentEntries: T[] = [];
  private waiting: { entry: T; done: () => void; fail: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  private constructor(
    private handle: FileHandle,
    private readonly path: string,
  ) {}

  static async open<T>(path: string): Promise<AppendLog<T>> {
    const handle = await open(path, 'a+', 0o600);
    const log = new AppendLog<T>(handle, path);
    const text = await readTail(handle, 1024 * 1024);
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        log.recentEntries.push(JSON.parse(line) as T);
      } catch {
        /* a line cut by a crash, or the cut start of the tail */
      }
    }
    log.recentEntries = log.recentEntries.slice(-KEEP_IN_MEMORY);
    return log;
  }

  /**
   * Resolves once the entry is on disk. The caller holds a pass of the write gate until then, so a
   * backup cuts the file between whole batches; the batch write itself does not pass the gate (a
   * closing gate waits for these very callers).
   */
  append(entry: T): Promise<void> {
    return gated(
      this.path,
      () =>
        new Promise<void>((done, fail) => {
          this.waiting.push({ entry, done, fail });
          this.flushing ??= this.flush();
        }),
    );
  }

  private async flush() {
    while (this.waiting.length) {
      const batch = this.waiting.splice(0);
      try {
        await this.handle.write(batch.map((b) => `${JSON.stringify(b.entry)}\n`).join(''));
        await this.handle.datasync();
        for (const b of batch) this.recentEntries.push(b.entry);
        if (this.recentEntries.length > KEEP_IN_MEMORY * 2)
          this.recentEntries = this.recentEntries.slice(-KEEP_IN_MEMORY);
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    this.flushing = undefined;
  }

  /** Newest first. */
  recent(limit: number): Promise<T[]> {
    return Promise.resolve(this.recentEntries.slice(-limit).reverse());
  }

  /**
   * Up to `limit` entries passing `match`, newest first, from the whole file (the audit log's search).
   * With `isCursor`, only entries older than the one it names; none when that entry is not in the file.
   */
  async scan(match: (e: T) => boolean, limit: number, isCursor?: (e: T) => boolean): Promise<T[]> {
    await this.flushing;
    const { size } = await this.handle.stat();
    const buffer = Buffer.alloc(size);
    await this.handle.read(buffer, 0, size, 0);
    const lines = buffer.toString('utf8').split('\n');
    const found: T[] = [];
    let started = !isCursor;
    for (let i = lines.length - 1; i >= 0 && found.length < limit; i--) {
      if (!lines[i]) continue;
      let entry: T;
      try {
        entry = JSON.parse(lines[i]!) as T;
      } catch {
        continue; // a line cut by a crash
      }
      if (!started) {
        started = isCursor!(entry);
        continue;
      }
      if (match(entry)) found.push(entry);
    }
    return found;
  }

  /**
   * Replaces the file with what `write` puts into a new one, with the write gate closed (appends wait):
   * the new file is synced and renamed over the old, then the directory synced, so a crash leaves one
   * or the other whole; the append handle then points at the new file.
   */
  private replace(write: (out: FileHandle) => Promise<void>): Promise<void> {
    return exclusively(this.path, async () => {
      while (this.flushing) await this.flushing; // no gate (a test): let the batch on its way land first
      const temp = `${this.path}.${randomToken(8)}${TEMP_SUFFIX}`;
      const out = await open(temp, 'w', 0o600);
      try {
        await write(out);
        await out.sync();
        await out.close();
        await rename(temp, this.path);
      } catch (err) {
        await out.close().catch(() => {});
        await unlink(temp).catch(() => {});
        throw err;
      }
      await syncDir(dirname(this.path));
      const old = this.handle;
      this.handle = await open(this.path, 'a+', 0o600);
      await old.close();
    });
  }

  /**
   * Drops the entries older than `before` (an ISO time) from the start of the file: the log is in
   * the order entries were written, so this stops at the first entry that is not older. The rest is
   * copied into a new file that replaces the old one (a crash leaves one or the other whole), with
   * the write gate closed: appends wait meanwhile (a copy of the remaining entries). Returns how many
   * entries were dropped.
   */
  async prune(before: string): Promise<number> {
    const { offset, dropped } = await this.olderPrefix(before);
    if (!dropped) return 0;
    await this.replace(async (out) => {
      const { size } = await this.handle.stat();
      const chunk = Buffer.alloc(1024 * 1024);
      for (let at = offset; at < size;) {
        const { bytesRead } = await this.handle.read(chunk, 0, Math.min(chunk.length, size - at), at);
        if (!bytesRead) break;
        await out.write(chunk.subarray(0, bytesRead));
        at += bytesRead;
      }
    });
    this.recentEntries = this.recentEntries.filter((e) => !isOlder(e, before));
    return dropped;
  }

  /**
   * Keeps the entries `keep` accepts, wherever they are in the file (prune drops a prefix only): the
   * file is read line by line and, when some entry goes, the kept lines are copied into a new file
   * that replaces the old one, with the write gate closed, as prune does. Returns how many entries
   * were dropped.
   */
  async retain(keep: (entry: T) => boolean): Promise<number> {
    const drops = (line: string) => {
      try {
        return !keep(JSON.parse(line) as T);
      } catch {
        return false; // a line cut by a crash: left for the readers, which skip it
      }
    };
    await this.flushing;
    // Only whether anything goes (the first line that does ends the look): the rewrite below counts.
    let any = false;
    for await (const line of readLines(this.path))
      if (line && drops(line)) {
        any = true;
        break;
      }
    if (!any) return 0;
    let dropped = 0;
    await this.replace(async (out) => {
      let kept: string[] = [];
      for await (const line of readLines(this.path)) {
        if (!line) continue;
        if (drops(line)) dropped++;
        else kept.push(line);
        if (kept.length >= 4096) {
          await out.write(`${kept.join('\n')}\n`);
          kept = [];
        }
      }
      if (kept.length) await out.write(`${kept.join('\n')}\n`);
    });
    this.recentEntries = this.recentEntries.filter(keep);
    return dropped;
  }

  /** The byte length of the run of entries older than `before` at the start of the file, and their number. */
  private async olderPrefix(before: string): Promise<{ offset: number; dropped: number }> {
    const { size } = await this.handle.stat();
    const chunk = Buffer.alloc(256 * 1024);
    let offset = 0;
    let dropped = 0;
    let carry = Buffer.alloc(0);
    for (let at = 0; at < size;) {
      const { bytesRead } = await this.handle.read(chunk, 0, Math.min(chunk.length, size - at), at);
      if (!bytesRead) break;
      at += bytesRead;
      let data = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10)) {
        const line = data.subarray(0, nl).toString('utf8');
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          entry = undefined; // a line cut by a crash: dropped with the old entries around it
        }
        if (entry !== undefined && !isOlder(entry, before)) return { offset, dropped };
        offset += nl + 1;
        if (entry !== undefined) dropped++;
        data = data.subarray(nl + 1);
      }
      carry = data;
    }
    return { offset, dropped };
  }

  async close() {
    await this.flushing;
    await this.handle.close();
  }
}

const isOlder = (entry: unknown, before: string) => {
  const at = (entry as { at?: unknown }).at;
  return typeof at === 'string' && at < before;
};

/** The last `bytes` of the file: the log grows without bound, start-up reads only its end. */
async function readTail(handle: FileHandle, bytes: number): Promise<string> {
  const { size } = await handle.stat();
  const length = Math.min(size, bytes);
  const buffer = Buffer.alloc(length);
  await handle.read(buffer, 0, length, size - length);
  return buffer.toString('utf8');
}
