import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomToken } from '../model/index.js';

export class LockError extends Error {}

export interface DataDirLock {
  release(): void;
}

interface LockInfo {
  pid: number;
  hostname: string;
  started_at: string;
  /** Makes every lock's text unique, so a stale lock is named by its text alone. */
  token: string;
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

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;
const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (code(err) === 'ENOENT') return undefined;
    throw err;
  }
};
const unlinkQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
};
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Creates `path` holding `text` only if it does not exist, all or nothing: the text goes to a temp
 * file that is then hard-linked to `path` (link fails if the name exists), so nobody ever reads a
 * half-written lock. Where hard links are not supported, an exclusive open is the fallback.
 */
function createExclusive(path: string, text: string): boolean {
  // Taken already: say so without writing anything (a user who may not write here learns the same).
  if (existsSync(path)) return false;
  const temp = `${path}.${randomToken(8)}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
  } catch (err) {
    // Report the lock's own path: the temp name means nothing to whoever reads the message.
    throw Object.assign(err as Error, { path, message: (err as Error).message.replace(temp, path) });
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if (code(err) === 'EEXIST') return false;
    if (code(err) !== 'EPERM' && code(err) !== 'ENOTSUP' && code(err) !== 'ENOSYS') throw err;
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, text);
      closeSync(fd);
      return true;
    } catch (e) {
      if (code(e) === 'EEXIST') return false;
      throw e;
    }
  } finally {
    unlinkQuietly(temp);
  }
}

/** A claim left by a process that died while taking over a stale lock is ignored after this long. */
const CLAIM_EXPIRY_MS = 30_000;

/**
 * One process owns a data directory. The LOCK file holds the owner's pid; a lock whose process is
 * gone (killed, crashed) is taken over, so a SIGKILL never leaves the directory unusable.
 *
 * Taking over is where two servers starting at once could both win (both see the stale lock, one
 * removes it and creates its own, the other then removes that one). So only the process that
 * exclusively creates `LOCK.claim-<hash of the stale lock's text>` may remove the stale lock, and it
 * removes it only if LOCK still holds that text; everyone then races to create LOCK exclusively,
 * and exactly one wins. Lock texts are unique (pid, time, random token), so a claim names one lock.
 */
export function acquireLock(dataDir: string): DataDirLock {
  const path = join(dataDir, 'LOCK');
  const mine: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    started_at: new Date().toISOString(),
    token: randomToken(12),
  };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 40; attempt++) {
    if (createExclusive(path, text)) {
      return {
        release() {
          if (readText(path) === text) unlinkQuietly(path);
        },
      };
    }
    let seen: string | undefined;
    try {
      seen = readText(path);
    } catch (err) {
      // Held by a process of another user whose lock we may not read: it is not ours to take.
      throw new LockError(`The data directory ${dataDir} is locked (${path}: ${code(err) ?? String(err)}).`);
    }
    if (seen === undefined) continue; // released or taken over meanwhile: try again at once
    let holder: LockInfo | undefined;
    try {
      holder = JSON.parse(seen) as LockInfo;
    } catch {
      holder = undefined; // written by an older version, torn by a crash: stale
    }
    if (holder && holder.hostname !== hostname()) {
      throw new LockError(
        `The data directory ${dataDir} is locked by a server on host ${holder.hostname} (pid ${holder.pid}). ` +
          `If that server is gone, remove ${path} by hand.`,
      );
    }
    if (holder && isAlive(holder.pid)) {
      throw new LockError(
        `Another Ticketing server (pid ${holder.pid}, started ${holder.started_at}) is using the data directory ${dataDir}. ` +
          'Stop it first, or point TICKETING_DATA_DIR at another directory.',
      );
    }
    const claim = join(dataDir, `LOCK.claim-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`);
    if (createExclusive(claim, text)) {
      try {
        if (readText(path) === seen) unlinkSync(path);
      } finally {
        unlinkQuietly(claim);
      }
      continue;
    }
    // Someone else is taking this stale lock over: wait for them, unless their claim is abandoned.
    try {
      if (Date.now() - statSync(claim).mtimeMs > CLAIM_EXPIRY_MS) unlinkQuietly(claim);
    } catch {
      /* the claim is gone: the takeover finished */
    }
    sleepSync(25 + Math.random() * 50);
  }
  throw new LockError(`Could not lock the data directory ${dataDir}; another server may be starting. Try again.`);
}
