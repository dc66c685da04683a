import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/config.js';
import { boot } from '../boot.js';
import { runMain, startChild } from '../test-support/child-server.js';
import { createTicket, makeKeys, PNG_1PX, startServer, ticketInput } from '../test-support/server.js';
import { ticketRecord } from '../test-support/ticket-record.js';
import type { Ticket } from '../model/index.js';
import { ioError, setFaultInjector } from './faults.js';
import { FileTicketStore } from './file-ticket-store.js';
import { newId } from '../model/index.js';
import { StartupError } from './startup-error.js';

const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'ticketing-store-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A stored ticket, the `i`th created (one second apart from 2026-01-01). */
const storedTicket = (i: number): Ticket =>
  ticketRecord({
    id: newId('tkt'),
    number: 1001 + i,
    subject: `journal ${i}`,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  });

describe('the data directory', () => {
  it("is its owner's only: every folder the server creates is 0700, every file 0600", async () => {
    const root = join(await tempDir(), 'not');
    const dataDir = join(root, 'yet', 'data'); // the server creates the parents too
    const keys = makeKeys();
    const s = await startServer({ dataDir, keys });
    for (const key of [keys.pk, keys.pkTest]) {
      const form = new FormData();
      for (const [k, v] of Object.entries(ticketInput())) form.append(k, String(v));
      form.append('attachments[]', new Blob([PNG_1PX]), 'a.png');
      expect((await s.call('POST', '/create', { key, multipart: form })).status).toBe(201);
    }
    await s.call('POST', '/admin?r=design', { json: { title: 'Audited' } });
    await s.close();

    const modes: string[] = [];
    const walk = async (path: string) => {
      const info = await stat(path);
      modes.push(
        `${info.isDirectory() ? 'dir ' : 'file'} ${(info.mode & 0o777).toString(8)} ${path.slice(root.length)}`,
      );
      if (info.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
    };
    await walk(root);
    expect(modes.length).toBeGreaterThan(12); // data, live/test, tickets, files, one folder per ticket, outbox …
    expect(
      modes.filter((m) => m.startsWith('dir ')).every((m) => m.startsWith('dir  700 ')),
      modes.join('\n'),
    ).toBe(true);
    expect(
      modes.filter((m) => m.startsWith('file')).every((m) => m.startsWith('file 600 ')),
      modes.join('\n'),
    ).toBe(true);
  });
});

describe('restart', () => {
  it('finds everything again and the index agrees with the files', async () => {
    const dataDir = await tempDir();
    const keys = makeKeys();
    const first = await startServer({ dataDir, keys });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++)
      ids.push((await createTicket(first, { subject: `restart ${i}`, email: `c${i % 3}@example.com` })).id);
    await first.call('POST', '/reply', { json: { ticket_id: ids[3], message: 'a reply' } });
    await first.call('POST', '/status', { json: { ticket_id: ids[4], status: 'closed' } });
    await first.call('DELETE', '/delete', { json: { ticket_id: ids[5] } });
    const testTicket = await createTicket(first, {}, keys.pkTest);
    const listBefore = await first.call('GET', '/list?limit=200');
    await first.close();

    const second = await startServer({ dataDir, keys });
    try {
      const listAfter = await second.call('GET', '/list?limit=200');
      expect(listAfter.body).toEqual(listBefore.body);
      expect(listAfter.body.total).toBe(24);
      expect((await second.call('GET', '/list?status=closed')).body.data.map((t: { id: string }) => t.id)).toEqual([
        ids[4],
      ]);
      expect((await second.call('GET', '/list?email=c0@example.com')).body.total).toBe(9); // i = 0, 3, …, 24
      const t3 = await second.call('GET', `/ticket?id=${ids[3]}`);
      expect(t3.body.replies[0].message).toBe('a reply');
      expect((await second.call('GET', `/ticket?id=${ids[5]}`)).status).toBe(404);
      expect((await second.call('GET', `/ticket?id=${testTicket.id}`, { key: keys.skTest })).status).toBe(200);
      // Every ticket file parses and matches what the API says.
      const files = await readdir(join(dataDir, 'live', 'tickets'));
      expect(files.sort()).toEqual(listAfter.body.data.map((t: { id: string }) => `${t.id}.json`).sort());
    } finally {
      await second.close();
    }
  });
});

describe('writes to one ticket', () => {
  it('are serialised: 40 concurrent replies all land', async () => {
    const s = await startServer();
    let t: Awaited<ReturnType<typeof createTicket>>;
    try {
      t = await createTicket(s);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          s.call('POST', '/reply', {
            key: i % 2 ? s.keys.pk : s.keys.sk,
            json: { ticket_id: t.id, email: t.email, message: `r${i}` },
          }),
        ),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const final = await s.call('GET', `/ticket?id=${t.id}`);
      expect(final.body.replies.map((r: { message: string }) => r.message).sort()).toEqual(
        Array.from({ length: 40 }, (_, i) => `r${i}`).sort(),
      );
      expect((await s.call('GET', `/list?q=${encodeURIComponent(t.subject)}`)).body.data[0].reply_count).toBe(40);
    } finally {
      await s.close({ keepData: true });
    }
    // A stopped server has written every ticket as its file.
    const onDisk = JSON.parse(await readFile(join(s.dataDir, 'live', 'tickets', `${t!.id}.json`), 'utf8'));
    expect(onDisk.replies).toHaveLength(40);
    await rm(s.dataDir, { recursive: true, force: true });
  });
});

describe('start-up checks', () => {
  it('stops on a corrupt ticket file, names it, and leaves it untouched', async () => {
    const dataDir = await tempDir();
    const first = await startServer({ dataDir });
    const t = await createTicket(first);
    await first.close();
    const path = join(dataDir, 'live', 'tickets', `${t.id}.json`);
    const torn = (await readFile(path, 'utf8')).slice(0, 40);
    await writeFile(path, torn);
    const err = await startServer({ dataDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toContain(path);
    expect((err as StartupError).hint).toMatch(/backup|move it/);
    expect(await readFile(path, 'utf8')).toBe(torn);
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(false); // a failed start releases the lock
  });

  it('reads thousands of tickets (on a second thread), and still stops on a damaged or unreadable one', async () => {
    const dataDir = await tempDir();
    const dir = join(dataDir, 'live', 'tickets');
    await mkdir(dir, { recursive: true });
    const ids: string[] = [];
    for (let i = 0; i < 2500; i++) {
      const ticket = { ...storedTicket(i), status: i % 2 ? 'open' : 'closed' };
      ids.push(ticket.id);
      await writeFile(join(dir, `${ticket.id}.json`), JSON.stringify(ticket));
    }
    const store = await FileTicketStore.open(dataDir, 'live');
    expect(await store.count({})).toBe(2500);
    expect(await store.count({ status: 'open' })).toBe(1250);
    const page = await store.list({}, 3, 0);
    expect(page.items.map((t) => t.id)).toEqual([ids[2499], ids[2498], ids[2497]]); // newest first
    await store.close();

    const damaged = join(dir, `${ids[1700]}.json`);
    const torn = (await readFile(damaged, 'utf8')).slice(0, 40);
    await writeFile(damaged, torn);
    const err = await FileTicketStore.open(dataDir, 'live').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).message).toContain(damaged);
    expect(await readFile(damaged, 'utf8')).toBe(torn);

    await rm(damaged);
    await mkdir(damaged); // a directory where a ticket file should be: not readable as one
    const unreadable = await FileTicketStore.open(dataDir, 'live').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(unreadable).toBeInstanceOf(StartupError);
    expect((unreadable as StartupError).message).toContain(damaged);
  });

  it('stops on a corrupt config.json and leaves it untouched', async () => {
    const dataDir = await tempDir();
    await writeFile(join(dataDir, 'config.json'), '{"keys": [oops');
    const child = runMain({ TICKETING_DATA_DIR: dataDir });
    expect(await child.exited).toBe(1);
    expect(child.output()).toContain(join(dataDir, 'config.json'));
    expect(child.output()).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(await readFile(join(dataDir, 'config.json'), 'utf8')).toBe('{"keys": [oops');
  });

  it('removes temp files a crash left behind, and only those', async () => {
    const dataDir = await tempDir();
    const first = await startServer({ dataDir });
    const t = await createTicket(first);
    await first.close();
    const tickets = join(dataDir, 'live', 'tickets');
    await writeFile(join(tickets, `${t.id}.json.abc12345.tmp`), '{"half": ');
    const second = await startServer({ dataDir });
    await second.close();
    expect(await readdir(tickets)).toEqual([`${t.id}.json`]);
  });

  it('refuses bad settings with a clear message', () => {
    expect(() => loadConfig({ TICKETING_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ TICKETING_RATE_LIMIT: 'maybe' })).toThrow(/TICKETING_RATE_LIMIT/);
    expect(() => loadConfig({ TICKETING_PUBLIC_URL: 'ftp://x' })).toThrow(/TICKETING_PUBLIC_URL/);
    // A database password with characters a URL reserves: what to do, and never the password itself.
    // Sh0p:p@ss/w#rd, pasted as typed at createuser's prompt, parsed with the host "ss" before.
    for (const password of ['pa#ss', 'pa/ss', 'pa@ss', 'pa?ss', 'Sh0p:p@ss/w#rd', 'p@ss/word', 'p@ss?x#y']) {
      const url = `postgres://ticketing:${password}@db.example:5432/ticketing`;
      expect(() => loadConfig({ TICKETING_DATABASE_URL: url })).toThrow(/TICKETING_DATABASE_URL: .*percent-encode/);
      expect(() => loadConfig({ TICKETING_DATABASE_URL: url })).not.toThrow(password);
    }
    expect(
      loadConfig({ TICKETING_DATABASE_URL: 'postgres://ticketing:pa%23s%40s@db.example/ticketing' }).database,
    ).toBeDefined();
    // libpq's socket form: the driver would send host to PostgreSQL as a setting ("unrecognized
    // configuration parameter"), or the URL without a host was called a percent-encoding problem.
    for (const url of [
      'postgresql:///ticketing?host=/var/run/postgresql',
      'postgres://ticketing@localhost/ticketing?host=/var/run/postgresql',
      'postgres://ticketing:pw@localhost:5432/ticketing?sslmode=disable&host=db.internal',
    ]) {
      expect(() => loadConfig({ TICKETING_DATABASE_URL: url })).toThrow(
        /TICKETING_DATABASE_URL: has host in its query .*127\.0\.0\.1:5432.*\(a Unix socket is not supported\)$/m,
      );
      expect(() => loadConfig({ TICKETING_DATABASE_URL: url })).not.toThrow(/percent-encode/);
    }
    const c = loadConfig({ TICKETING_PORT: '0', TICKETING_RATE_LIMIT: 'off', TICKETING_KEYS: ' a , b ' });
    expect(c).toMatchObject({
      port: 0,
      rateLimit: { enabled: false, pkPerMinute: 60, pkCreatesPer10Minutes: 10, skPerMinute: 600 },
      envKeys: ['a', 'b'],
    });
  });

  it('refuses a malformed key in TICKETING_KEYS', async () => {
    const dataDir = await tempDir();
    await expect(
      boot(loadConfig({ TICKETING_DATA_DIR: dataDir, TICKETING_PORT: '0', TICKETING_KEYS: 'sk_live_short' }), {
        print: () => {},
      }),
    ).rejects.toThrow(/malformed key/);
  });
});

describe('first start', () => {
  it('creates a pk_live and an sk_live key, prints them once, and stores only the hash of the secret', async () => {
    const dataDir = await tempDir();
    const child = await startChild({ TICKETING_DATA_DIR: dataDir });
    const pk = /pk_live_[A-Za-z0-9]{24,}/.exec(child.output())![0];
    // Standard output is a pipe here, so the secret key is in a file (keys/first-keys.test.ts).
    const sk = (await readFile(join(dataDir, 'first-secret-key.txt'), 'utf8')).trim();
    expect(sk).toMatch(/^sk_live_[A-Za-z0-9]{24,}$/);
    const me = await fetch(`${child.url}/v1/me`, { headers: { Authorization: `Bearer ${sk}` } });
    expect(((await me.json()) as { key: { admin: boolean } }).key.admin).toBe(true);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const config = await readFile(join(dataDir, 'config.json'), 'utf8');
    expect(config).toContain(pk);
    expect(config).not.toContain(sk);
    expect(config).toContain(sha(sk));
    expect(config).toContain(sk.slice(0, 12));

    const again = await startChild({ TICKETING_DATA_DIR: dataDir });
    expect(again.output()).not.toMatch(/pk_live_|sk_live_/);
    again.proc.kill('SIGTERM');
    await again.exited;
  });
});

describe('the data-directory lock', () => {
  it('refuses a second server, and recovers after the first is killed', async () => {
    const dataDir = await tempDir();
    const keys = makeKeys();
    const env = { TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: Object.values(keys).join(',') };
    const first = await startChild(env);
    const created = await fetch(`${first.url}/v1/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(ticketInput({ subject: 'before the kill' })),
    });
    expect(created.status).toBe(201);

    const second = runMain(env);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toMatch(/Another Ticketing server \(pid \d+/);
    expect(second.output()).not.toContain('listening on');

    first.proc.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(true); // left behind by the killed process

    const third = await startChild(env);
    try {
      const list = await fetch(`${third.url}/v1/list`, { headers: { Authorization: `Bearer ${keys.sk}` } });
      const body = (await list.json()) as { data: { subject: string }[] };
      expect(body.data.map((t) => t.subject)).toEqual(['before the kill']);
      // The killed server's numbers are kept: the next ticket follows them, none is given twice.
      const next = await fetch(`${third.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(ticketInput({ subject: 'after the kill' })),
      });
      expect(((await next.json()) as { number: number }).number).toBe(1002);
    } finally {
      third.proc.kill('SIGTERM');
      await third.exited;
    }
  });
});

describe('the data-directory lock under a race', () => {
  it('lets exactly one of many servers starting at once take a stale lock, or a free directory', async () => {
    // Three directories with a lock left by a process that is gone, and one without a lock.
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((ok) => dead.on('exit', ok));
    const stale = JSON.stringify({ pid: dead.pid, hostname: hostname(), started_at: '2026-01-01T00:00:00Z' });
    const dirs = [await tempDir(), await tempDir(), await tempDir(), await tempDir()];
    for (const d of dirs.slice(0, 3)) await writeFile(join(d, 'LOCK'), stale);

    // Six processes race for each directory in turn, all calling acquireLock at the same instant,
    // agreed once every one has loaded (tsx takes a moment, more on a loaded machine).
    const racer = fileURLToPath(new URL('../test-support/lock-racer.ts', import.meta.url));
    const racers = Array.from({ length: 6 }, () => {
      const p = spawn(process.execPath, ['--import', 'tsx', racer, '500', ...dirs], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      let isReady: () => void;
      const ready = new Promise<void>((ok) => (isReady = ok));
      const answered = new Promise<string[]>((ok) =>
        p.stdout.on('data', (c) => {
          out += c;
          const lines = out.trim().split('\n');
          if (lines[0] === 'ready') isReady();
          if (lines.length === dirs.length + 1) ok(lines.slice(1));
        }),
      );
      return { p, ready, answered };
    });
    await Promise.all(racers.map((r) => r.ready));
    const startAt = Date.now() + 500;
    for (const { p } of racers) p.stdin.write(`${startAt}\n`);
    // Every racer keeps what it got until all have answered: a late one meets live owners.
    const outputs = await Promise.all(racers.map((r) => r.answered));
    await Promise.all(racers.map(({ p }) => new Promise((ok) => (p.on('exit', ok), p.stdin.end()))));
    for (const [round, dir] of dirs.entries()) {
      const results = outputs.map((lines) => lines[round] ?? 'no answer');
      expect(
        results.filter((r) => r === 'got'),
        results.join('\n'),
      ).toHaveLength(1);
      expect(results.filter((r) => r.startsWith('refused: '))).toHaveLength(5);
      expect(await readdir(dir)).toEqual(['LOCK']); // no claim or temp file left
    }
  });
});

describe('durable writes', () => {
  it('leave no temp files behind and keep the old file when a write fails', async () => {
    const { writeFileDurable } = await import('./durable-write.js');
    const dir = await tempDir();
    const path = join(dir, 'a.json');
    await writeFileDurable(path, '{"v":1}');
    await writeFileDurable(path, '{"v":2}');
    expect(await readFile(path, 'utf8')).toBe('{"v":2}');
    expect(await readdir(dir)).toEqual(['a.json']);
    await mkdir(join(dir, 'b.json')); // renaming a file over a directory fails
    await expect(writeFileDurable(join(dir, 'b.json'), 'x')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['a.json', 'b.json']);
  });
});

describe('the journal (group commit)', () => {
  const journalFiles = async (dir: string) =>
    (await readdir(join(dir, 'live'))).filter((n) => n.startsWith('journal-'));
  const ticketFiles = async (dir: string) => (await readdir(join(dir, 'live', 'tickets'))).sort();
  afterEach(() => setFaultInjector(undefined));

  it('commits concurrent writes with one fdatasync a batch, and a restart without a checkpoint (a crash) finds them all', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    const syncs: string[] = [];
    setFaultInjector((op, path) => void (op === 'fsync' && path.includes('journal-') && syncs.push(path)));
    const written = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create({ ticket: storedTicket(i) })));
    setFaultInjector(undefined);
    expect(syncs.length).toBeGreaterThan(0);
    expect(syncs.length).toBeLessThan(10); // 50 writes, a handful of commits
    expect(await ticketFiles(dir)).toEqual([]); // no checkpoint yet: the journal alone holds them
    expect((await store.get(written[7]!.id))?.subject).toBe('journal 7');

    // The first store is never closed, as after a kill: the next one replays its journal.
    const again = await FileTicketStore.open(dir, 'live');
    expect(await again.count({})).toBe(50);
    for (const t of written) expect(await again.get(t.id)).toEqual(t);
    expect(await ticketFiles(dir)).toEqual(written.map((t) => `${t.id}.json`).sort());
    expect(await journalFiles(dir)).toHaveLength(1); // the replayed one is gone; a new, empty one
  });

  it('replays updates and removals in order, and skips a line cut by a crash', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    const [a, b] = [storedTicket(1), storedTicket(2)];
    await store.create({ ticket: a });
    await store.create({ ticket: b });
    await store.update(a.id, (t) => ({ ticket: { ...t, status: 'closed' } }));
    await store.remove(b.id);
    const [file] = await journalFiles(dir);
    const c = storedTicket(3);
    await appendFile(join(dir, 'live', file!), JSON.stringify({ ticket: c }).slice(0, 40)); // a torn batch
    const again = await FileTicketStore.open(dir, 'live');
    expect((await again.get(a.id))?.status).toBe('closed');
    expect(await again.get(b.id)).toBeUndefined();
    expect(await again.get(c.id)).toBeUndefined();
    expect(await ticketFiles(dir)).toEqual([`${a.id}.json`]);
  });

  it('takes back a batch whose fdatasync failed, so a restart does not bring back a write answered as failed', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    const kept = await store.create({ ticket: storedTicket(1) });
    let failed = false;
    setFaultInjector((op, path) => {
      if (op === 'fsync' && path.includes('journal-') && !failed) {
        failed = true;
        throw ioError('EIO', op);
      }
    });
    const lost = storedTicket(2);
    await expect(store.create({ ticket: lost })).rejects.toThrow(/EIO/);
    setFaultInjector(undefined);
    expect(await store.get(lost.id)).toBeUndefined();
    const later = await store.create({ ticket: storedTicket(3) }); // the journal goes on after the failure
    const again = await FileTicketStore.open(dir, 'live');
    expect(await again.get(lost.id)).toBeUndefined();
    expect(await again.get(kept.id)).toEqual(kept);
    expect(await again.get(later.id)).toEqual(later);
  });

  it('keeps a failed batch out of the journal until it can be cut off, even when cutting fails at first', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    let faults = 0;
    setFaultInjector((op, path) => {
      // The fsync fails, and so does the first attempt to cut the batch off.
      if (path.includes('journal-') && (op === 'fsync' || op === 'truncate') && faults < 2) {
        faults++;
        throw ioError('EIO', op);
      }
    });
    const lost = storedTicket(1);
    await expect(store.create({ ticket: lost })).rejects.toThrow(/EIO/);
    setFaultInjector(undefined);
    const later = await store.create({ ticket: storedTicket(2) }); // cuts the failed batch off first
    const [file] = await journalFiles(dir);
    const text = await readFile(join(dir, 'live', file!), 'utf8');
    expect(text).not.toContain(lost.id);
    expect(text).toContain(later.id);
  });

  it('numbers tickets in journal order, and a crash neither loses nor repeats a number', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    const written = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create({ ticket: storedTicket(i) })));
    expect(written.map((t) => t.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 1001 + i));
    // The first store is never closed, as after a kill: the next one takes the numbers from its journal.
    const again = await FileTicketStore.open(dir, 'live');
    for (const t of written) expect((await again.getByNumber(t.number))?.id).toBe(t.id);
    expect((await again.create({ ticket: storedTicket(20) })).number).toBe(1021);
  });

  it('gives the numbers of a failed batch back: the next ticket takes them, with no gap', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live');
    expect((await store.create({ ticket: storedTicket(1) })).number).toBe(1001);
    let failed = false;
    setFaultInjector((op, path) => {
      if (op === 'fsync' && path.includes('journal-') && !failed) {
        failed = true;
        throw ioError('EIO', op);
      }
    });
    const lost = Promise.allSettled([
      store.create({ ticket: storedTicket(2) }),
      store.create({ ticket: storedTicket(3) }),
    ]);
    expect((await lost).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    setFaultInjector(undefined);
    expect((await store.create({ ticket: storedTicket(4) })).number).toBe(1002);
    const again = await FileTicketStore.open(dir, 'live');
    expect((await again.create({ ticket: storedTicket(5) })).number).toBe(1003);
  });

  it('checkpoints: writes the files of a full journal file and deletes it, while writes go on', async () => {
    const dir = await tempDir();
    const store = await FileTicketStore.open(dir, 'live', { checkpointBytes: 2000 });
    const written: Ticket[] = [];
    for (let round = 0; round < 5; round++)
      written.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.create({ ticket: storedTicket(round * 10 + i) })),
        )),
      );
    await store.idle();
    const files = await ticketFiles(dir);
    expect(files.length).toBeGreaterThan(0); // checkpoints wrote files…
    expect((await journalFiles(dir)).length).toBeLessThan(3); // …and deleted the journal files they covered
    for (const t of written) expect(await store.get(t.id)).toEqual(t);
    const again = await FileTicketStore.open(dir, 'live');
    for (const t of written) expect(await again.get(t.id)).toEqual(t);
    expect(files.every((f) => f.endsWith('.json'))).toBe(true);
  });
});
