import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

/** The newest modification time of the sources the build compiles (tsconfig.build.json: no tests, no test support). */
function newestSource(dir: string): number {
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'test-support') latest = Math.max(latest, newestSource(path));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

let fresh: boolean | undefined;

/**
 * Whether server/dist was built from the sources as they are now: it exists and no source file the
 * build compiles changed after its entry points were written. `pnpm test` builds before it tests, so
 * then the tests start the built server (about 3 s a start here, against 7-10 s through tsx, which
 * compiles every module on each start); a targeted run after an edit, or on a checkout never built,
 * runs the sources through tsx, so it always tests the code as it is.
 */
function distIsFresh(): boolean {
  if (fresh !== undefined) return fresh;
  try {
    const built = Math.min(statSync(join(DIST, 'main.js')).mtimeMs, statSync(join(DIST, 'cli.js')).mtimeMs);
    fresh = newestSource(SRC) <= built;
  } catch {
    fresh = false; // no build
  }
  return fresh;
}

/**
 * The node arguments that run the server's entry point `name` (main or cli): the built file when the
 * build is fresh (or `built` asks for it, as the systemd unit runs it), else the source through tsx.
 * `path` maps a file of the checkout to where the process's user can read it.
 */
export function entryArgs(name: 'main' | 'cli', built = false, path = (p: string) => p): string[] {
  if (built || distIsFresh()) return [path(join(DIST, `${name}.js`))];
  return ['--import', 'tsx', path(join(SRC, `${name}.ts`))];
}
