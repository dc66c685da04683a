import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFiles } from './read-files.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function collect(dir: string, names: string[], parallelFrom: number) {
  const out: [string, string | undefined][] = [];
  for await (const batch of readFiles(dir, names, parallelFrom))
    for (let i = 0; i < batch.names.length; i++) out.push([batch.names[i]!, batch.text(i)]);
  return out;
}

describe('readFiles', () => {
  it('gives every file its own text, in order, in this thread and in a second one alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ticketing-read-'));
    dirs.push(dir);
    const names: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const name = `f${i}.json`;
      names.push(name);
      // Sizes from empty to over 2 MB (more than a batch's buffer), and text that is not ASCII.
      const text = i === 7 ? '' : i === 1234 ? 'ü'.repeat(1_100_000) : `{"n":${i},"s":"${'é€'.repeat(i % 300)}"}`;
      await writeFile(join(dir, name), text);
    }
    await mkdir(join(dir, 'a-directory.json'));
    names.splice(500, 0, 'missing.json', 'a-directory.json');
    const expected = await Promise.all(
      names.map(async (n) => [n, await readFile(join(dir, n), 'utf8').catch(() => undefined)] as const),
    );
    expect(expected[500]![1]).toBeUndefined();
    expect(expected[501]![1]).toBeUndefined();
    expect(await collect(dir, names, Infinity)).toEqual(expected);
    expect(await collect(dir, names, 0)).toEqual(expected);
  });

  it('lets the reading thread go when the reader stops early', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ticketing-read-'));
    dirs.push(dir);
    const names = Array.from({ length: 4000 }, (_, i) => `f${i}.json`);
    for (const n of names) await writeFile(join(dir, n), 'x'.repeat(2000)); // several batches
    let seen = 0;
    for await (const batch of readFiles(dir, names, 0)) {
      seen += batch.names.length;
      break;
    }
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(names.length);
    // Leaving the loop ended the thread (had it waited for a consumer, the break would hang), and a
    // second full read works beside it.
    expect((await collect(dir, names, 0)).length).toBe(names.length);
  });
});
