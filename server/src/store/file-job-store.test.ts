import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../model/index.js';
import { FileJobStore } from './file-job-store.js';
import type { Job } from './job-store.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const job = (i: number): Job => ({
  id: newId('evt'),
  kind: 'mail',
  payload: { to: `c${i}@x.example`, subject: `Re: ${i}`, text: 'On it.' },
  attempts: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  next_attempt_at: '2026-01-02T00:00:00.000Z',
  last_error: null,
});

async function outboxWith(count: number) {
  const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-outbox-'));
  dirs.push(dataDir);
  await mkdir(join(dataDir, 'outbox'));
  const jobs = Array.from({ length: count }, (_, i) => job(i));
  for (const j of jobs) await writeFile(join(dataDir, 'outbox', `${j.id}.json`), JSON.stringify(j));
  return { dataDir, jobs };
}

function capturedLogger() {
  const lines: { msg: string; file?: string }[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('FileJobStore.open', () => {
  for (const count of [5, 2500]) {
    it(`finds every waiting job again (${count} jobs), and leaves an unreadable file in place with a log line`, async () => {
      const { dataDir, jobs } = await outboxWith(count);
      const torn = join(dataDir, 'outbox', 'evt_torn.json');
      await writeFile(torn, '{"id": "evt_torn", "kind"');
      const folder = join(dataDir, 'outbox', 'evt_folder.json');
      await mkdir(folder);
      const { logger, lines } = capturedLogger();
      const store = await FileJobStore.open(dataDir, logger);
      const pending = await store.pending();
      expect(pending.map((j) => j.id).sort()).toEqual(jobs.map((j) => j.id).sort());
      expect(pending.find((j) => j.id === jobs[count - 1]!.id)).toEqual(jobs[count - 1]);
      expect(lines.map((l) => l.file).sort()).toEqual([folder, torn]);
      expect(await readFile(torn, 'utf8')).toBe('{"id": "evt_torn", "kind"');
    });
  }
});

describe('FileJobStore writes', () => {
  // A pass may claim a job while its add() is still writing the file (the job is held in memory at
  // once). CI saw the slow first write land last and the disk forget the attempt; a removal landing
  // first would be worse: the sent mail's file comes back, and it is sent again after a restart.
  it('keep the order they were asked in: a job removed while its file is being written stays removed', async () => {
    const { dataDir } = await outboxWith(0);
    const store = await FileJobStore.open(dataDir, pino({ level: 'silent' }));
    const sent = { ...job(1), attempts: 0, next_attempt_at: '2026-01-01T00:00:00.000Z' };
    const failed = { ...job(2), attempts: 0, next_attempt_at: '2026-01-01T00:00:00.000Z' };
    const writes = [store.add(sent), store.add(failed)];
    // The pass, without waiting for the adds: one mail went out, one failed and waits for a retry.
    writes.push(store.remove(sent.id), store.save({ ...failed, attempts: 1, last_error: 'refused' }));
    await Promise.all(writes);
    expect((await readdir(join(dataDir, 'outbox'))).sort()).toEqual([`${failed.id}.json`]);
    const reopened = await FileJobStore.open(dataDir, pino({ level: 'silent' }));
    expect(await reopened.pending()).toEqual([{ ...failed, attempts: 1, last_error: 'refused' }]);
  });
});
