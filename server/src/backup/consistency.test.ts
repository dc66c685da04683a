import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/cli.js';
import { restoreArchive } from './restore.js';
import { PNG_1PX, startServer, ticketInput, type TestServer } from '../test-support/server.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-cut-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/**
 * Secret-key creates with an attachment (each writes attachment bytes, a journal entry and an audit
 * entry) and replies (a journal entry and an audit entry), until stopped. Each acknowledged create is
 * noted with the time its answer arrived.
 */
function writeLoad(s: TestServer, clients: number) {
  const acknowledged: { id: string; at: number }[] = [];
  let stop = false;
  let n = 0;
  const client = async () => {
    while (!stop) {
      const i = n++;
      const form = new FormData();
      for (const [k, v] of Object.entries(ticketInput({ subject: `cut ${i}` }))) form.append(k, v as string);
      form.append('attachments[]', new Blob([PNG_1PX]), `shot-${i}.png`);
      const res = await s.call('POST', '/create', { key: s.keys.sk, multipart: form });
      if (res.status !== 201) throw new Error(`create failed under load: ${res.status} ${res.text}`);
      acknowledged.push({ id: res.body.id, at: Date.now() });
      const reply = await s.call('POST', '/reply', { json: { ticket_id: res.body.id, message: `answer ${i}` } });
      if (reply.status !== 201) throw new Error(`reply failed under load: ${reply.status}`);
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

describe('a backup under load is one moment (issue 33)', () => {
  it('holds every ticket acknowledged before its cut, no attachment or audit entry without its ticket', async () => {
    const dataDir = join(work, 'data');
    const s = await startServer({ dataDir, env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    const archives = [join(work, 'one.tar'), join(work, 'two.tar.gz')];
    const load = writeLoad(s, 4);
    try {
      while (load.acknowledged.length < 40) await new Promise((r) => setTimeout(r, 5));
      // Two backups in a row, each cut while creates, uploads, replies and audit entries go on.
      for (const archive of archives) {
        const backup = await runCli(['backup', archive], { TICKETING_DATA_DIR: dataDir });
        expect(backup.code, backup.stderr).toBe(0);
      }
    } finally {
      await load.stop();
      await s.close({ keepData: true });
    }

    for (const archive of archives) {
      const restored = join(work, `restored-${archives.indexOf(archive)}`);
      const cut = Date.parse((await restoreArchive(archive, restored)).created_at);

      const ticketsDir = join(restored, 'live', 'tickets');
      const tickets = new Map<string, { attachments: { id: string }[]; replies: unknown[] }>();
      for (const name of await readdir(ticketsDir))
        tickets.set(name.slice(0, -'.json'.length), JSON.parse(await readFile(join(ticketsDir, name), 'utf8')));

      // Every create answered before the manifest's time is in the backup.
      const before = load.acknowledged.filter((a) => a.at < cut);
      expect(before.length, archive).toBeGreaterThan(0);
      for (const { id } of before) expect(tickets.has(id), `${archive}: ${id} acknowledged before the cut`).toBe(true);
      // And the load went on past the cut: the backup was taken under load.
      expect(
        load.acknowledged.some((a) => a.at > cut),
        archive,
      ).toBe(true);

      // No attachment without the ticket that names it.
      const filesDir = join(restored, 'live', 'files');
      const orphans: string[] = [];
      for (const ticketId of existsSync(filesDir) ? await readdir(filesDir) : []) {
        for (const fileId of await readdir(join(filesDir, ticketId))) {
          const t = tickets.get(ticketId);
          if (!t?.attachments.some((a) => a.id === fileId)) orphans.push(`${ticketId}/${fileId}`);
        }
      }
      expect(orphans, `${archive}: orphan attachments`).toEqual([]);

      // No audit entry about a ticket the backup does not hold.
      const audit = (await readFile(join(restored, 'audit.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { action: string; target: string | null });
      const aboutTickets = audit.filter((e) => e.action.startsWith('ticket.') && e.target?.startsWith('tkt_'));
      expect(aboutTickets.length, archive).toBeGreaterThan(0);
      const missing = aboutTickets.filter((e) => !tickets.has(e.target!)).map((e) => `${e.action} ${e.target}`);
      expect(missing, `${archive}: audit entries for missing tickets`).toEqual([]);
    }
  }, 90_000);
});
