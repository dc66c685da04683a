import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreArchive } from '../backup/restore.js';
import { StartupError } from '../store/startup-error.js';
import { closeGate, openGate } from '../store/write-gate.js';
import { runMain, startChild } from '../test-support/child-server.js';
import { createTicket, makeKeys, startServer } from '../test-support/server.js';
import { numberTickets } from './number-tickets.js';
import { prepareDataDir } from './prepare.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-format-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** A data directory with three tickets, written by this server. */
async function populated(name: string) {
  const dataDir = join(work, name);
  const keys = makeKeys();
  const s = await startServer({ dataDir, keys });
  const ids = [(await createTicket(s)).id, (await createTicket(s)).id, (await createTicket(s)).id];
  await s.close({ keepData: true });
  return { dataDir, keys, ids };
}

describe('data format versions', () => {
  it('records the format in a new directory', async () => {
    const { dataDir } = await populated('new');
    expect(await readFile(join(dataDir, 'FORMAT'), 'utf8')).toBe('2\n');
  });

  it('migrates an older directory at start, after backing it up through the backup code', async () => {
    const { dataDir, keys, ids } = await populated('older');
    await unlink(join(dataDir, 'FORMAT')); // as written before formats were recorded: format 0
    const child = await startChild({ TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: Object.values(keys).join(',') });
    try {
      expect(child.output()).toMatch(
        /The data directory is format 0; migrating to format 2\. Backing up first to \S+before-format-2-\S+\.tar\.gz/,
      );
      expect(child.output()).toContain('format 0 -> 1: records the format in data/FORMAT');
      expect(child.output()).toContain('format 1 -> 2: gives every ticket its number');
      expect(await readFile(join(dataDir, 'FORMAT'), 'utf8')).toBe('2\n');
      const list = await fetch(`${child.url}/v1/list`, { headers: { Authorization: `Bearer ${keys.sk}` } });
      expect(((await list.json()) as { total: number }).total).toBe(3);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    // The backup holds the directory as it was before the migration, and restores.
    const [backup] = await readdir(join(dataDir, 'backups'));
    const restored = join(work, 'older-restored');
    const manifest = await restoreArchive(join(dataDir, 'backups', backup!), restored);
    expect(manifest.data_format).toBeNull(); // no FORMAT file yet at the time
    expect(manifest.counts.tickets.live).toBe(3);
    for (const id of ids) expect(existsSync(join(restored, 'live', 'tickets', `${id}.json`))).toBe(true);

    // A second start has nothing to migrate.
    const again = await startChild({ TICKETING_DATA_DIR: dataDir });
    again.proc.kill('SIGTERM');
    await again.exited;
    expect(again.output()).not.toContain('migrating');
    expect(await readdir(join(dataDir, 'backups'))).toEqual([backup]);
  });

  it('numbers the tickets of a format-1 directory oldest first, the same again when a run is cut short', async () => {
    const { dataDir, keys, ids } = await populated('unnumbered');
    const dir = join(dataDir, 'live', 'tickets');
    // As format 1 wrote them: no numbers. The first ticket is made the newest: numbers follow created_at.
    const strip = async () => {
      for (const name of await readdir(dir)) {
        const t = JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>;
        delete t.number;
        if (t.id === ids[0]) t.created_at = '2030-01-01T00:00:00.000Z';
        await writeFile(join(dir, name), JSON.stringify(t));
      }
    };
    await strip();
    await writeFile(join(dataDir, 'FORMAT'), '1\n');
    // A first run that stops half-way (only one ticket numbered), as a crash would leave it.
    await numberTickets(dataDir, 'live');
    await strip();
    const one = JSON.parse(await readFile(join(dir, `${ids[1]}.json`), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, `${ids[1]}.json`), JSON.stringify({ ...one, number: 1001 }));

    const child = await startChild({ TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: Object.values(keys).join(',') });
    try {
      expect(child.output()).toContain('format 1 -> 2: gives every ticket its number');
      const read = async (query: string) =>
        (await (
          await fetch(`${child.url}/v1/ticket?${query}`, { headers: { Authorization: `Bearer ${keys.sk}` } })
        ).json()) as { id: string; number: number };
      expect((await read('number=1001')).id).toBe(ids[1]);
      expect((await read('number=1002')).id).toBe(ids[2]);
      expect((await read('number=1003')).id).toBe(ids[0]);
      expect((await read(`id=${ids[0]}`)).number).toBe(1003);
      const next = await fetch(`${child.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'A', email: 'a@example.com', subject: 's', message: 'm' }),
      });
      expect(((await next.json()) as { number: number }).number).toBe(1004);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    // The ticket file shows the number right after the id.
    expect(Object.keys(JSON.parse(await readFile(join(dir, `${ids[0]}.json`), 'utf8'))).slice(0, 2)).toEqual([
      'id',
      'number',
    ]);
  });

  it('refuses a newer directory with one line, and changes nothing', async () => {
    const { dataDir } = await populated('newer');
    await writeFile(join(dataDir, 'FORMAT'), '3\n');
    const config = await readFile(join(dataDir, 'config.json'), 'utf8');
    const child = runMain({ TICKETING_DATA_DIR: dataDir });
    expect(await child.exited).toBe(1);
    expect(child.output()).toBe(
      `The data directory ${dataDir} is format 3, written by a newer Ticketing; this one (0.1.0) reads format 2 at most. ` +
        'Upgrade Ticketing, or restore a backup made by this version into a new directory.\n',
    );
    expect(await readFile(join(dataDir, 'FORMAT'), 'utf8')).toBe('3\n');
    expect(await readFile(join(dataDir, 'config.json'), 'utf8')).toBe(config);
    expect(existsSync(join(dataDir, 'backups'))).toBe(false);
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(false);
  });

  it('runs each step in order, recording the format after each; a failing step names the backup', async () => {
    const dataDir = join(work, 'chain');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'config.json'), '{"v":1}');
    await writeFile(join(dataDir, 'FORMAT'), '1\n');
    const printed: string[] = [];
    const steps = [
      {
        from: 1,
        what: 'renames v to version',
        run: async (d: string) => writeFile(join(d, 'config.json'), '{"version":2}'),
      },
      {
        from: 2,
        what: 'fails half-way',
        run: async () => {
          throw new Error('disk on fire');
        },
      },
    ];
    openGate(dataDir);
    try {
      const error = await prepareDataDir(dataDir, {
        serverVersion: 't',
        print: (l) => printed.push(l),
        migrations: steps,
        current: 3,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toMatch(
        /Migrating \S+ from format 2 failed: disk on fire\. The backup from before it is \S+before-format-3-\S+\.tar\.gz; restore it with: ticketing restore /,
      );
      expect(printed[1]).toBe('  format 1 -> 2: renames v to version');
      expect(await readFile(join(dataDir, 'FORMAT'), 'utf8')).toBe('2\n'); // the last step that completed
      const [backup] = await readdir(join(dataDir, 'backups'));
      const restored = join(work, 'chain-restored');
      await restoreArchive(join(dataDir, 'backups', backup!), restored);
      expect(await readFile(join(restored, 'config.json'), 'utf8')).toBe('{"v":1}');
    } finally {
      closeGate(dataDir);
    }
  });
});
