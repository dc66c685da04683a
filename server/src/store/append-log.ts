import { open, type FileHandle } from 'node:fs/promises';
import type { LogStore } from './log-store.js';
import { gated } from './write-gate.js';

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
    private readonly handle: FileHandle,
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

  async close() {
    await this.flushing;
    await this.handle.close();
  }
}

/** The last `bytes` of the file: the log grows without bound, start-up reads only its end. */
async function readTail(handle: FileHandle, bytes: number): Promise<string> {
  const { size } = await handle.stat();
  const length = Math.min(size, bytes);
  const buffer = Buffer.alloc(length);
  await handle.read(buffer, 0, length, size - length);
  return buffer.toString('utf8');
}
