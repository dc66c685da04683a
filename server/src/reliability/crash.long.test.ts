import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeKeys } from '../test-support/server.js';
import { freePort } from '../test-support/smtp.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(SERVER_DIR, 'src', 'main.ts');
const keys = makeKeys();
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const stop = (proc: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') => {
  try {
    process.kill(-proc.pid!, signal);
  } catch {
    /* already gone */
  }
};

/** Starts the real entry point (optionally under strace) and resolves once it listens. */
async function start(dataDir: string, port: number, strace?: string): Promise<ChildProcess> {
  const node = [process.execPath, '--import', 'tsx', MAIN];
  const args = strace
    ? [
        'strace',
        '-f',
        '-s',
        '120',
        '-o',
        strace,
        '-e',
        'trace=fsync,fdatasync,rename,renameat,renameat2,openat,write,pwrite64,writev',
        ...node,
      ]
    : node;
  const proc = spawn(args[0]!, args.slice(1), {
    // Its own process group: stop() kills strace and the server it traces together (killing strace
    // alone detaches the server, which then runs on and keeps the test run from ending).
    detached: true,
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH,
      TICKETING_DATA_DIR: dataDir,
      TICKETING_PORT: String(port),
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_RATE_LIMIT: 'off',
      TICKETING_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no start:\n${out}`)), 30_000);
    proc.stdout!.on('data', () => out.includes('listening on') && (clearTimeout(timer), ok()));
    proc.on('exit', (code) => (clearTimeout(timer), fail(new Error(`exited ${code}:\n${out}`))));
  });
  return proc;
}

function call(
  port: number,
  agent: Agent,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  return new Promise((ok, fail) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method,
        path: `/v1${path}`,
        headers: { Authorization: `Bearer ${key}`, ...(data ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : null }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(data);
  });
}

describe('crash safety', () => {
  it('loses nothing acknowledged when the server is SIGKILLed at random moments under load (20 trials)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ticketing-crash-'));
    dirs.push(dataDir);
    const random = rng(7);
    const acked = new Map<string, Set<string>>(); // ticket id -> acknowledged reply ids
    let ackedWrites = 0;
    let failedWrites = 0;
    for (let trial = 0; trial < 20; trial++) {
      const port = await freePort();
      const proc = await start(dataDir, port);
      const agent = new Agent({ keepAlive: true, maxSockets: 50 });
      let stopClients = false;
      const client = async (c: number) => {
        for (let i = 0; !stopClients; i++) {
          try {
            const known = [...acked.keys()];
            if (known.length && random() < 0.5) {
              const id = known[Math.floor(random() * known.length)]!;
              const res = await call(port, agent, 'POST', '/reply', keys.sk, {
                ticket_id: id,
                message: `reply ${trial}/${c}/${i}`,
              });
              if (res.status === 201) {
                acked.get(id)!.add(res.json.replies.at(-1).id);
                ackedWrites++;
              }
            } else {
              const res = await call(port, agent, 'POST', '/create', keys.pk, {
                name: `C ${c}`,
                email: `c${c}@example.com`,
                subject: `trial ${trial} ${c}/${i}`,
                message: 'Under load.',
              });
              if (res.status === 201) {
                acked.set(res.json.id, new Set());
                ackedWrites++;
              }
            }
          } catch {
            failedWrites++; // in flight at the kill: not acknowledged, so nothing is promised
            if (stopClients) return;
          }
        }
      };
      const clients = Array.from({ length: 50 }, (_, c) => client(c));
      await new Promise((r) => setTimeout(r, 150 + random() * 900));
      stop(proc);
      stopClients = true;
      await Promise.all(clients);
      await new Promise<void>((r) => (proc.exitCode !== null ? r() : proc.once('exit', () => r())));
      agent.destroy();
    }

    // Restart once more and check every acknowledged write.
    const port = await freePort();
    const proc = await start(dataDir, port);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      let lost = 0;
      for (const [id, replies] of acked) {
        const res = await call(port, agent, 'GET', `/ticket?id=${id}`, keys.sk);
        if (res.status !== 200) {
          lost++;
          continue;
        }
        const present = new Set(res.json.replies.map((r: { id: string }) => r.id));
        for (const r of replies) if (!present.has(r)) lost++;
      }
      const files = readdirSync(join(dataDir, 'live', 'tickets'));
      for (const f of files)
        expect(() => JSON.parse(readFileSync(join(dataDir, 'live', 'tickets', f), 'utf8'))).not.toThrow();
      expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]); // stale temp files were removed at start
      console.log(
        `crash: 20 trials, ${ackedWrites} acknowledged writes (${acked.size} tickets), ${failedWrites} requests cut off by the kill, ${lost} lost`,
      );
      expect(lost).toBe(0);
      expect(ackedWrites).toBeGreaterThan(500);
    } finally {
      stop(proc, 'SIGTERM');
      agent.destroy();
    }
  });

  it('answers a create only after its journal batch is fdatasynced, and at shutdown writes the ticket file: fsync before rename, the directory after (strace)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ticketing-strace-'));
    dirs.push(dataDir);
    const trace = join(dataDir, '..', `strace-${Date.now()}.txt`);
    dirs.push(trace);
    const port = await freePort();
    const proc = await start(dataDir, port, trace);
    const agent = new Agent({ keepAlive: true });
    try {
      const res = await call(port, agent, 'POST', '/create', keys.pk, {
        name: 'S',
        email: 's@example.com',
        subject: 'strace',
        message: 'm',
      });
      expect(res.status).toBe(201);
      const id = res.json.id as string;
      // A clean stop: the last checkpoint writes the ticket's file; strace ends with the server.
      const exited = new Promise<void>((r) => (proc.exitCode !== null ? r() : proc.once('exit', () => r())));
      stop(proc, 'SIGTERM');
      await exited;
      const lines = readFileSync(trace, 'utf8').split('\n');
      const pid = (l: string) => l.split(' ')[0];
      /** The line where the call that starts on line i returns (strace splits calls other threads interrupt). */
      const returned = (i: number, call: string) =>
        lines[i]!.includes('<unfinished')
          ? lines.findIndex((l, j) => j > i && pid(l) === pid(lines[i]!) && l.includes(`<... ${call} resumed>`))
          : i;

      // openat(…/live/journal-N.jsonl…) = FD … write(FD, "{\"ticket\":{\"id\":\"tkt_X…) … fdatasync(FD) = 0 … "HTTP/1.1 201"
      const journalOpen = lines.findIndex(
        (l) => l.includes('openat') && /\/live\/journal-\d+\.jsonl"/.test(l) && l.includes('O_CREAT'),
      );
      expect(journalOpen).toBeGreaterThanOrEqual(0);
      const jfd = /= (\d+)$/.exec(lines[returned(journalOpen, 'openat')]!.trim())![1];
      const append = lines.findIndex((l) => new RegExp(`(write|pwrite64)\\(${jfd}, `).test(l) && l.includes(id));
      const syncStart = lines.findIndex((l, i) => i > append && new RegExp(`fdatasync\\(${jfd}`).test(l));
      const synced = returned(syncStart, 'fdatasync');
      const answer = lines.findIndex((l) => l.includes('HTTP/1.1 201'));
      console.log(
        ['strace excerpt (answer):', lines[journalOpen], lines[append], lines[synced], lines[answer]].join('\n  '),
      );
      expect(append).toBeGreaterThan(journalOpen);
      expect(syncStart).toBeGreaterThan(append);
      expect(synced).toBeGreaterThanOrEqual(syncStart);
      expect(answer).toBeGreaterThan(synced);

      // openat(…tkt_X.json.abcd1234.tmp…) = FD  …  fsync(FD)  …  rename(…tmp, …tkt_X.json)  …  fsync(dir fd)
      const open = lines.findIndex((l) => l.includes(`${id}.json.`) && l.includes('openat') && l.includes('O_CREAT'));
      expect(open).toBeGreaterThan(answer);
      const fd = /= (\d+)$/.exec(lines[returned(open, 'openat')]!.trim())![1];
      const fsync = lines.findIndex((l, i) => i > open && new RegExp(`f(data)?sync\\(${fd}[) ]`).test(l));
      const rename = lines.findIndex((l, i) => i > open && /rename/.test(l) && l.includes(`${id}.json"`));
      const dirOpen = lines.findIndex(
        (l, i) => i > rename && l.includes('openat') && l.includes('/live/tickets"') && l.includes('O_RDONLY'),
      );
      const dirFd = dirOpen >= 0 ? /= (\d+)$/.exec(lines[returned(dirOpen, 'openat')]!.trim())![1] : 'none';
      const dirSync = lines.findIndex(
        (l, i) => i > dirOpen && dirOpen >= 0 && new RegExp(`fsync\\(${dirFd}[) ]`).test(l),
      );
      console.log(
        ['strace excerpt (checkpoint):', lines[open], lines[fsync], lines[rename], lines[dirOpen], lines[dirSync]].join(
          '\n  ',
        ),
      );
      expect(fsync).toBeGreaterThan(open);
      expect(rename).toBeGreaterThan(fsync);
      expect(dirSync).toBeGreaterThan(rename);
      expect(existsSync(join(dataDir, 'live', 'tickets', `${id}.json`))).toBe(true);
    } finally {
      stop(proc);
      agent.destroy();
      if (existsSync(trace)) rmSync(trace);
    }
  });
});
