import { copyFileSync, existsSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A copy of the checkout that other users may read, when the checkout itself is private. */
    checkoutForOthers?: string;
  }
}

/** The user tests run other processes as when they run as root: nobody. */
export const NOBODY = { uid: 65534, gid: 65534 };

/** The checkout's root folder (the workspace: server/, widget/, node_modules/ …). */
export const CHECKOUT = fileURLToPath(new URL('../../..', import.meta.url));

/** Whether every user may reach `path`: it and each folder above it let others through. */
export function reachableByOthers(path: string): boolean {
  for (let p = path; ; p = dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) return false;
    if (p === dirname(p)) return true;
  }
}

/**
 * A path to this very Node that another user may run. Node from `npx node@24` lives under root's
 * 0700 home; then a copy in the temp directory (made once per version) serves instead.
 */
export function nodeForOthers(): string {
  const path = process.execPath;
  if (reachableByOthers(path)) return path;
  const copy = join(tmpdir(), `ticketing-node-${process.version}`);
  if (!existsSync(copy)) copyFileSync(path, copy);
  return copy;
}

/**
 * Where another user finds `path` (a file of this checkout): in the checkout itself, or, when the
 * checkout sits in a private folder, in the copy everyone may read that other-user-setup.ts made.
 */
export function checkoutPathForOthers(path: string): string {
  const copy = inject('checkoutForOthers');
  return copy ? join(copy, relative(CHECKOUT, path)) : path;
}

/**
 * What a copy of the checkout leaves out: .git; .vite, a cache written in place (a hard link would
 * write it through into the original); .vite-temp, where a starting vitest bundles its config and
 * deletes it again (the other packages' tests start beside the copy).
 */
export const NOT_COPIED = ['.git', '.vite', '.vite-temp'];

/** A file the copy found that is gone when it is linked: the tree is in use (see NOT_COPIED). */
const gone = (err: unknown) => {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
};

/**
 * Copies the tree `from` to `to` (which must not exist) in moments: hard links where the file system
 * allows (the same files, no space), copies elsewhere, symbolic links as they are (pnpm's are relative,
 * so they point into the copy). Entries named in `skip` are left out at every depth; an entry that
 * goes while it is copied is left out too.
 */
export async function linkedCopy(from: string, to: string, skip: readonly string[] = []) {
  await mkdir(to, { mode: 0o755 });
  const entries = await readdir(from, { withFileTypes: true }).catch((err: unknown) => (gone(err), []));
  await Promise.all(
    entries
      .filter((e) => !skip.includes(e.name))
      .map(async (e) => {
        const source = join(from, e.name);
        const target = join(to, e.name);
        if (e.isDirectory()) await linkedCopy(source, target, skip);
        else if (e.isSymbolicLink()) await symlink(await readlink(source), target).catch(gone);
        else await link(source, target).catch(() => copyFile(source, target).catch(gone));
      }),
  );
}
