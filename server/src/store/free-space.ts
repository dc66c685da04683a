import { statfs } from 'node:fs/promises';

/**
 * Free bytes (for an unprivileged process) on the file system of a directory. The reading is kept for
 * `ttlMs`, so a busy server makes one statfs call every few seconds, not one per request.
 */
export class FreeSpace {
  private reading: { at: number; bytes: Promise<number> } | undefined;

  constructor(
    private readonly dir: string,
    private readonly ttlMs = 2000,
  ) {}

  bytes(): Promise<number> {
    const now = performance.now();
    if (!this.reading || now - this.reading.at > this.ttlMs) {
      // A file system that cannot be asked is not refused here: a write that then fails answers 503.
      const bytes = statfs(this.dir).then(
        (s) => s.bavail * s.bsize,
        () => Infinity,
      );
      this.reading = { at: now, bytes };
    }
    return this.reading.bytes;
  }
}
