import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

// The JSON store keeps every ticket's list view in memory (BENCHMARKS.md: 100k tickets must hold
// ≤ 300 MB after start). Measured here in a child process of its own, after full collections:
// 1,622 bytes a ticket before the index was made lean (a list item, its texts and times as parsed),
// 1,2xx after. The bound leaves room for small changes and fails if the index grows back.
it('keeps the list index of 20,000 tickets under 1,450 bytes a ticket of heap', async () => {
  const script = fileURLToPath(new URL('../test-support/index-bytes.ts', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', script, '20000'], {
    maxBuffer: 1 << 20,
  });
  const { bytesPerTicket } = JSON.parse(stdout) as { bytesPerTicket: number };
  expect(bytesPerTicket).toBeGreaterThan(300); // it measured the index, not nothing
  expect(bytesPerTicket).toBeLessThan(1450);
}, 120_000);
