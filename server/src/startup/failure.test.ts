import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../test-support/child-server.js';
import { NOBODY } from '../test-support/other-user.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ticketing-failure-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The output ends with one line that names the problem, and holds no stack trace. */
function expectOneLine(output: string, says: RegExp) {
  const lines = output.trim().split('\n');
  expect(lines.at(-1), output).toMatch(says);
  expect(
    lines.filter((l) => l.startsWith('Could not start')),
    output,
  ).toHaveLength(1);
  expect(output).not.toMatch(/\n\s+at |Error:|node:internal/);
}

describe('a start that cannot succeed', () => {
  it('ends with one clear line and exit 1 when the port is taken', async () => {
    const squatter = createServer();
    await new Promise<void>((ok) => squatter.listen(0, '127.0.0.1', ok));
    const { port } = squatter.address() as AddressInfo;
    try {
      const child = runMain({ TICKETING_DATA_DIR: join(dir, 'port'), TICKETING_PORT: String(port) });
      expect(await child.exited).toBe(1);
      expectOneLine(
        child.output(),
        new RegExp(`^Could not start: 127\\.0\\.0\\.1:${port} is already in use.*TICKETING_PORT`),
      );
    } finally {
      squatter.close();
    }
  });

  it('ends with one clear line and exit 1 when the data directory is not writable', async () => {
    const data = join(dir, 'readonly');
    await mkdir(data);
    // Root may write anywhere: as root the server runs as nobody; otherwise the directory is made read-only.
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) await chmod(data, 0o500);
    else await chmod(dir, 0o755);
    const child = runMain({ TICKETING_DATA_DIR: data }, asRoot ? { as: NOBODY } : {});
    expect(await child.exited).toBe(1);
    expectOneLine(
      child.output(),
      new RegExp(`data directory ${data} cannot be used: permission denied for uid \\d+ \\(open ${data}/LOCK\\)`),
    );
  });
});
