import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';

// The console's address as the server prints it (issue 30): at `127.0.0.1` a browser refuses passkeys
// (an IP address is no relying party), at `localhost` it takes them; so the printed address is
// `localhost` on the same port, or the public URL when one is set.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function start(env: Record<string, string> = {}): Promise<ChildServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-console-address-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const child = await startChild({ TICKETING_DATA_DIR: dir, ...env });
  cleanup.push(async () => {
    const { pid } = JSON.parse(await readFile(join(dir, 'LOCK'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
    await child.exited;
  });
  return child;
}

describe('the console address printed on start', () => {
  it('is localhost on the listening port', async () => {
    const child = await start();
    const port = new URL(child.url).port;
    expect(child.url).toBe(`http://127.0.0.1:${port}`); // the listening line stays as it was (API.md)
    expect(child.output()).toContain(`support console: http://localhost:${port}/console/`);
    expect(child.output()).not.toContain(`http://127.0.0.1:${port}/console`);
  });

  it('is the public URL when one is set', async () => {
    const child = await start({ TICKETING_PUBLIC_URL: 'https://support.shop.example' });
    expect(child.output()).toContain('support console: https://support.shop.example/console/');
  });
});
