import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/cli.js';
import { startChild } from '../test-support/child-server.js';
import { makeKeys, PNG_1PX, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { MANIFEST_NAME } from './archive.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-backup-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** Creates tickets (every third with an image, every other one answered) until stopped; records what was acknowledged. */
function writeLoad(s: TestServer, clients: number) {
  const acknowledged: string[] = [];
  let stop = false;
  let n = 0;
  const client = async () => {
    while (!stop) {
      const i = n++;
      let res;
      if (i % 3 === 0) {
        const form = new FormData();
        for (const [k, v] of Object.entries(ticketInput({ subject: `load ${i}` }))) form.append(k, v as string);
        form.append('attachments[]', new Blob([PNG_1PX]), `shot-${i}.png`);
        res = await s.call('POST', '/create', { key: s.keys.pk, multipart: form });
      } else {
        res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ subject: `load ${i}` }) });
      }
      if (res.status !== 201) throw new Error(`create failed under load: ${res.status} ${res.text}`);
      acknowledged.push(res.body.id);
      if (i % 2 === 0) {
        const reply = await s.call('POST', '/reply', { json: { ticket_id: res.body.id, message: `answer ${i}` } });
        if (reply.status !== 201) throw new Error(`reply failed under load: ${reply.status}`);
      }
    }
  };
  const running = Promise.all(Array.from({ length: clients }, client));
  return {
    acknowledged,
    async stop() {
      stop = true;
      await running;
    },
  };
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('ticketing backup and restore', () => {
  it('backs up a running server under write load; the restore holds every acknowledged ticket, whole', async () => {
    const dataDir = join(work, 'data');
    const s = await startServer({ dataDir, env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    const archive = join(work, 'under-load.tar.gz');
    const restored = join(work, 'restored');
    let beforeBackup: string[];
    const load = writeLoad(s, 6);
    try {
      // Let the load get going, then note what is acknowledged before the backup begins.
      while (load.acknowledged.length < 30) await new Promise((r) => setImmediate(r));
      beforeBackup = [...load.acknowledged];
      const backup = await runCli(['backup', archive], { TICKETING_DATA_DIR: dataDir });
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(/^Backed up \d+ tickets \(live \d+, test 0\), \d+ attachments/);
      expect(backup.stdout).toMatch(
        /Taken by the running server \(pid \d+\); writes waited \d+ ms\. Every file matches its checksum\./,
      );
      // The load ran on while the backup did: writes waited, none was refused.
      expect(load.acknowledged.length).toBeGreaterThan(beforeBackup.length);
    } finally {
      await load.stop();
      await s.close({ keepData: true });
    }
    expect(existsSync(archive)).toBe(true);
    expect((await readdir(work)).filter((f) => f.includes('.partial'))).toEqual([]);

    const restore = await runCli(['restore', archive, restored], {});
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^Restored \d+ tickets/);

    // Every ticket acknowledged before the backup began is there, and every ticket file parses.
    const tickets = join(restored, 'live', 'tickets');
    const names = await readdir(tickets);
    for (const id of beforeBackup) expect(names, id).toContain(`${id}.json`);
    for (const name of names) {
      const t = JSON.parse(await readFile(join(tickets, name), 'utf8'));
      expect(t.id).toBe(name.slice(0, -5));
      // A point in time: each attachment a ticket names is there, at its size.
      for (const a of t.attachments) {
        const file = join(restored, 'live', 'files', t.id, a.id);
        expect((await stat(file)).size, `${t.id}/${a.id}`).toBe(a.size);
      }
    }
    // The append-only logs were cut between whole lines.
    for (const line of (await readFile(join(restored, 'audit.jsonl'), 'utf8')).split('\n').filter(Boolean))
      expect(() => JSON.parse(line)).not.toThrow();

    // Checked from outside: GNU tar reads the archive, and every restored file has its manifest checksum.
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', archive, MANIFEST_NAME], { encoding: 'utf8' })) as {
      files: { path: string; sha256: string }[];
      counts: { tickets: { live: number } };
      data_format: number;
    };
    expect(manifest.counts.tickets.live).toBe(names.length);
    expect(manifest.data_format).toBe(2);
    for (const f of manifest.files) expect(await sha256(join(restored, f.path)), f.path).toBe(f.sha256);
    expect(manifest.files.map((f) => f.path)).not.toContain('LOCK');
    expect(manifest.files.map((f) => f.path)).not.toContain('control.sock');

    // The server starts on the restored directory and serves every one of those tickets.
    const again = await startServer({ dataDir: restored });
    try {
      for (const id of beforeBackup) expect((await again.call('GET', `/ticket?id=${id}`)).status, id).toBe(200);
      expect((await again.call('GET', '/list?limit=1')).body.total).toBe(names.length);
    } finally {
      await again.close({ keepData: true });
    }

    // With the server stopped, the same command backs up the files itself.
    const offline = await runCli(['backup', join(work, 'offline.tar'), '--json'], { TICKETING_DATA_DIR: restored });
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      running_server: null,
      counts: { tickets: { live: names.length } },
    });

    // A restore never mixes a backup with other data.
    const busy = await runCli(['restore', archive, restored], {});
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe(`${restored} is not empty; restore into an empty or a new directory.\n`);
  });

  it('with the server stopped after a crash, backs up what its journal held', async () => {
    const dataDir = join(work, 'crashed');
    const keys = makeKeys();
    const child = await startChild({ TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: Object.values(keys).join(',') });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${child.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(ticketInput({ subject: `before the crash ${i}` })),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    child.proc.kill('SIGKILL'); // no last checkpoint: the tickets are in the journal only
    await child.exited;
    expect((await readdir(join(dataDir, 'live'))).some((f) => f.startsWith('journal-'))).toBe(true);

    const archive = join(work, 'crashed.tar');
    const backup = await runCli(['backup', archive], { TICKETING_DATA_DIR: dataDir });
    expect(backup.code, backup.stderr).toBe(0);
    const restored = join(work, 'crashed-restored');
    expect((await runCli(['restore', archive, restored], {})).code).toBe(0);
    const names = await readdir(join(restored, 'live', 'tickets'));
    for (const id of ids) expect(names).toContain(`${id}.json`);
  });
});
