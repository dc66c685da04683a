import { copyFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The user tests run other processes as when they run as root: nobody. */
export const NOBODY = { uid: 65534, gid: 65534 };

/**
 * A path to this very Node that another user may run. Node from `npx node@24` lives under root's
 * 0700 home; then a copy in the temp directory (made once per version) serves instead.
 */
export function nodeForOthers(): string {
  const path = process.execPath;
  let reachable = (statSync(path).mode & 0o001) !== 0;
  for (let dir = dirname(path); reachable && dir !== dirname(dir); dir = dirname(dir))
    reachable = (statSync(dir).mode & 0o001) !== 0;
  if (reachable) return path;
  const copy = join(tmpdir(), `ticketing-node-${process.version}`);
  if (!existsSync(copy)) copyFileSync(path, copy);
  return copy;
}
