import { openSync, writeSync, closeSync, readFileSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export class LockError extends Error {}

export interface DataDirLock {
  release(): void;
}

interface LockInfo {
  pid: number;
  hostname: string;
  started_at: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process owns a data directory. The LOCK file holds the owner's pid; a lock whose process is
 * gone (killed, crashed) is taken over, so a SIGKILL never leaves the directory unusable.
 */
export function acquireLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'LOCK');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      const info: LockInfo = { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString() };
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      return {
        release() {
          try {
            const current = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
            if (current.pid === process.pid) unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: LockInfo | undefined;
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    } catch {
      holder = undefined; // empty or torn: the writer died between open and write
    }
    const sameHost = !holder || holder.hostname === hostname();
    if (holder && holder.pid !== process.pid && isAlive(holder.pid) && sameHost) {
      throw new LockError(
        `Another Ticketing server (pid ${holder.pid}, started ${holder.started_at}) is using the data directory ${dataDir}. ` +
          'Stop it first, or point TICKETING_DATA_DIR at another directory.',
      );
    }
    if (holder && !sameHost) {
      throw new LockError(
        `The data directory ${dataDir} is locked by a server on host ${holder.hostname} (pid ${holder.pid}). ` +
          `If that server is gone, remove ${path} by hand.`,
      );
    }
    try {
      unlinkSync(path); // stale: its process is gone
    } catch {
      /* someone else removed it first */
    }
  }
  throw new LockError(`Could not lock the data directory ${dataDir}; another server may be starting.`);
}
