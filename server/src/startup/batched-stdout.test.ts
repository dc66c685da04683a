import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { batchedStdout } from './batched-stdout.js';

const MODULE = fileURLToPath(new URL('./batched-stdout.ts', import.meta.url));

describe('batchedStdout', () => {
  it('hands the lines of one turn to stdout in one write, in order, after the turn', async () => {
    const writes: string[] = [];
    const out = batchedStdout({ write: (chunk: string) => writes.push(chunk) });
    out.write('a\n');
    out.write('b\n');
    expect(writes).toEqual([]);
    await new Promise((ok) => setImmediate(ok));
    expect(writes).toEqual(['a\nb\n']);
    out.write('c\n');
    out.flush();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
    await new Promise((ok) => setImmediate(ok));
    expect(writes).toHaveLength(2);
  });

  it('writes what is pending when the process exits, to a pipe', () => {
    // The lines are still pending when process.exit runs: only the exit handler can write them.
    const script = `import { batchedStdout } from ${JSON.stringify(MODULE)};
      const out = batchedStdout();
      for (let i = 0; i < 1000; i++) out.write('line ' + i + '\\n');
      process.exit(3);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(3);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1000);
    expect(lines[999]).toBe('line 999');
  });
});
