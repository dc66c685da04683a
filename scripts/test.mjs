// `pnpm test`: the checks and the packages' tests, side by side where one does not need another, and a
// failure of any of them fails the whole (exit 1, each failed step named at the end).
//
// On two cores the tests are the long part (minutes) and leave part of the CPU idle while they wait on
// child servers, mail and the database; the typecheck, lint (eslint, folder cycles, knip) and format
// check need nothing built and used to run before the tests, a minute and more of wall time on their
// own. So: the build starts at once (the tests run the built server, widget and console), the tests
// when it is done; typecheck, lint and format check run beside both at a lower priority (nice 10), so
// they take the CPU the build and the tests leave and slow neither much (timing tests stay timely).
//
// Usage: node scripts/test.mjs   (what `pnpm test` runs; `pnpm run "/^check:/"` still runs the checks alone)
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

/** A step: a pnpm script, whether it runs at the lower priority, and the steps it must wait for. */
const STEPS = [
  { name: 'build', script: 'check:build' },
  { name: 'types', script: 'check:types', low: true },
  { name: 'lint', script: 'check:lint', low: true },
  { name: 'format', script: 'check:format', low: true },
  { name: 'tests', script: 'test:packages', after: ['build'] },
];
const LOW_PRIORITY = 10;

const started = performance.now();
const seconds = (from) => `${((performance.now() - from) / 1000).toFixed(0)} s`;

function run(step) {
  return new Promise((done) => {
    const since = performance.now();
    // `pnpm` as the scripts call it: the one running this script puts itself on their PATH.
    const child = spawn('pnpm', ['run', step.script], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    // The lower priority is set right after the start, before pnpm (a second of start-up) runs
    // anything, so what it starts inherits it. Where it cannot be set, the step runs as it is.
    if (step.low && child.pid) {
      try {
        setPriority(child.pid, LOW_PRIORITY);
      } catch {
        /* not permitted here: same priority */
      }
    }
    for (const stream of [child.stdout, child.stderr]) {
      const out = stream === child.stdout ? process.stdout : process.stderr;
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
        out.write(`${step.name} | ${line}\n`),
      );
    }
    child.on('error', (err) => {
      process.stderr.write(`${step.name} | could not start: ${err.message}\n`);
      done({ step, ok: false, took: seconds(since) });
    });
    child.on('close', (code, signal) => done({ step, ok: code === 0, code: code ?? signal, took: seconds(since) }));
  });
}

const results = new Map();
const finished = new Map();
for (const step of STEPS) {
  const waits = (step.after ?? []).map((name) => finished.get(name));
  finished.set(
    step.name,
    Promise.all(waits).then(async (before) => {
      const failed = before.filter((r) => !r.ok).map((r) => r.step.name);
      const result = failed.length
        ? { step, ok: false, code: `not run: ${failed.join(', ')} failed`, took: '0 s' }
        : await run(step);
      results.set(step.name, result);
      process.stdout.write(`${step.name} | ${result.ok ? 'passed' : 'FAILED'} in ${result.took}\n`);
      return result;
    }),
  );
}
await Promise.all(finished.values());

const failed = STEPS.map((s) => results.get(s.name)).filter((r) => !r.ok);
process.stdout.write(
  `\n${STEPS.map((s) => `${s.name} ${results.get(s.name).ok ? 'passed' : 'FAILED'} (${results.get(s.name).took})`).join(', ')}; ${seconds(started)} in all\n`,
);
if (failed.length) {
  process.stderr.write(`pnpm test failed: ${failed.map((r) => `${r.step.name} (${r.code})`).join(', ')}\n`);
  process.exit(1);
}
