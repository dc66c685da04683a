import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { batchedStdout, LOG_DELAY_MS } from './batched-stdout.js';

const MODULE = fileURLToPath(new URL('./batched-stdout.ts', import.meta.url));

afterEach(() => {
  vi.useRealTimers();
});

describe('batchedStdout', () => {
  it('hands the lines of a few milliseconds to stdout in one write, in order', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const out = batchedStdout({ write: (chunk: string) => writes.push(chunk) });
    out.write('a\n');
    vi.advanceTimersByTime(LOG_DELAY_MS - 1);
    out.write('b\n');
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['a\nb\n']);
    out.write('c\n');
    out.flush(); // what boot's print does before it prints
    expect(writes).toEqual(['a\nb\n', 'c\n']);
    vi.advanceTimersByTime(LOG_DELAY_MS);
    expect(writes).toHaveLength(2);
  });

  it('writes at once when a burst of lines grows large', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const out = batchedStdout({ write: (chunk: string) => writes.push(chunk) });
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) out.write(line);
    expect(writes).toEqual([line.repeat(64)]);
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
