import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KEYS = { pk: `pk_live_${'P'.repeat(30)}`, sk: `sk_live_${'S'.repeat(30)}` };
export const SK = { Authorization: `Bearer ${KEYS.sk}` };
export const PK = { Authorization: `Bearer ${KEYS.pk}` };
export const JSON_TYPE = { 'Content-Type': 'application/json' };
export const CREATE_BODY = JSON.stringify({
  name: 'Load Test',
  email: 'load@example.com',
  subject: 'Load test: where is my teapot?',
  message: 'A message of ordinary length for a support ticket, about a teapot that has not arrived yet.',
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as AddressInfo;
  await new Promise((ok) => s.close(ok));
  return port;
}

export interface Running {
  proc: ChildProcess;
  pid: number;
  url: string;
  startMs: number;
  /** Bytes the process wrote to stdout and stderr (its log), read from the pipe as a deployment would. */
  logBytes(): number;
  rssMb(): number;
  stop(): Promise<void>;
}

/** Starts a process and waits until `probe` answers; the time until then is its start-up time. */
async function startProcess(args: string[], env: Record<string, string>, probe: string): Promise<Running> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, PORT: String(port), TICKETING_PORT: String(port), ...env },
    // The log goes to a pipe that is read, as under systemd or a container runtime: writing it costs
    // the server what it costs in production (/dev/null would be cheaper than any real deployment).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logBytes = 0;
  proc.stdout!.on('data', (c: Buffer) => (logBytes += c.length));
  let errors = '';
  proc.stderr!.on('data', (c: Buffer) => ((logBytes += c.length), (errors += c.toString())));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${proc.exitCode}: ${errors}`);
    const ok = await fetch(url + probe, { headers: SK }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - t0;
  return {
    proc,
    pid: proc.pid!,
    url,
    startMs,
    logBytes: () => logBytes,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) / 1024,
    stop: () =>
      new Promise((ok) => {
        if (proc.exitCode !== null) return ok();
        proc.once('exit', () => ok());
        proc.kill('SIGTERM');
      }),
  };
}

export const ticketing = (dataDir: string, extraArgs: string[] = [], env: Record<string, string> = {}) =>
  startProcess(
    [...extraArgs, join(ROOT, 'server/dist/main.js')],
    // Production settings (log level info, as deployed) but no rate limit.
    { TICKETING_DATA_DIR: dataDir, TICKETING_KEYS: `${KEYS.pk},${KEYS.sk}`, TICKETING_RATE_LIMIT: 'off', ...env },
    '/v1/me',
  );
export const baseline = (file: string, env: Record<string, string>, extraArgs: string[] = []) =>
  startProcess([...extraArgs, join(ROOT, 'bench/src/baselines', file)], env, '/');
