import { open, readFile, type FileHandle } from 'node:fs/promises';

const KEEP_IN_MEMORY = 500; // the most a log read may ask for

/**
 * An append-only JSON-lines file (audit.jsonl, webhook_log.jsonl). Each append is fsynced before it
 * resolves. The newest 500 entries are kept in memory, so reads never scan the file; a torn last line
 * from a crash is skipped when the file is opened.
 */
export class AppendLog<T> {
  private recentEntries: T[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly handle: FileHandle) {}

  static async open<T>(path: string): Promise<AppendLog<T>> {
    const handle = await open(path, 'a+', 0o600);
    const log = new AppendLog<T>(handle);
    const text = await readTail(path, 1024 * 1024);
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

  append(entry: T): Promise<void> {
    const run = this.queue.then(async () => {
      await this.handle.write(`${JSON.stringify(entry)}\n`);
      await this.handle.datasync();
      this.recentEntries.push(entry);
      if (this.recentEntries.length > KEEP_IN_MEMORY * 2)
        this.recentEntries = this.recentEntries.slice(-KEEP_IN_MEMORY);
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Newest first. */
  recent(limit: number): T[] {
    return this.recentEntries.slice(-limit).reverse();
  }

  async close() {
    await this.queue;
    await this.handle.close();
  }
}

async function readTail(path: string, bytes: number): Promise<string> {
  const data = await readFile(path);
  return data.subarray(Math.max(0, data.length - bytes)).toString('utf8');
}
