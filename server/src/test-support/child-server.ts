import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry-point.js';
import { checkoutPathForOthers, nodeForOthers } from './other-user.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

// No balancer in front of a test's server: the port closes at once on SIGTERM (TICKETING_STOP_GRACE_SECONDS),
// and tests about the grace set it.
const CHILD_DEFAULTS = { TICKETING_PORT: '0', TICKETING_LOG_LEVEL: 'warn', TICKETING_STOP_GRACE_SECONDS: '0' };

/**
 * The servers this test file started that still run. A test that fails or times out before its
 * clean-up leaves its server running, and on a loaded machine the next test on the same data
 * directory then meets that server's lock, or it outlives the run: each is killed when its start
 * fails, and all after the test file (test-support/per-file.ts; vitest ends its worker without an
 * 'exit' event, and a worker runs many files).
 */
const live = new Set<ChildProcess>();
export function killLiveChildren() {
  for (const proc of live) proc.kill('SIGKILL');
  live.clear();
}

function track(proc: ChildProcess) {
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  proc.once('error', () => live.delete(proc));
}

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

export interface RunOptions {
  /** Another user to run as (tests run as root in CI). */
  as?: { uid: number; gid: number };
  /** dist/main.js, as the systemd unit runs it, even when the sources changed after the build. */
  built?: boolean;
}

/** Runs the real entry point (dist/main.js when freshly built, else src/main.ts through tsx) as its own process, as a user would. */
export function runMain(
  env: Record<string, string>,
  { as, built = false }: RunOptions = {},
): {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const node = as ? nodeForOthers() : process.execPath;
  // Another user runs the same files, from where that user can read them.
  const path = (p: string) => (as ? checkoutPathForOthers(p) : p);
  const proc = spawn(node, entryArgs('main', built, path), {
    cwd: path(SERVER_DIR),
    env: { PATH: process.env.PATH, ...CHILD_DEFAULTS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  });
  track(proc);
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((ok) => {
    proc.on('exit', (code) => ok(code));
    proc.on('error', (err) => {
      out += `could not run: ${err.message}\n`;
      ok(null);
    });
  });
  return { proc, output: () => out, exited };
}

/**
 * The real entry point with a terminal as its standard output, as when a person starts it by hand:
 * util-linux `script` runs it on a pseudo-terminal and copies what it prints to our pipe. Its stdin
 * stays open, or `script` would end the session.
 */
function runMainInTerminal(env: Record<string, string>): ReturnType<typeof runMain> {
  const command = [process.execPath, ...entryArgs('main')].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const proc = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH, ...CHILD_DEFAULTS, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(proc);
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((ok) => proc.on('exit', (code) => ok(code)));
  return { proc, output: () => out, exited };
}

/** Starts the server and waits for its "listening on" line. */
export async function startChild(
  env: Record<string, string>,
  timeoutMs = 20_000,
  options: RunOptions & { terminal?: boolean } = {},
): Promise<ChildServer> {
  const child = options.terminal ? runMainInTerminal(env) : runMain(env, options);
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => {
      child.proc.kill('SIGKILL');
      fail(new Error(`no "listening on" within ${timeoutMs} ms:\n${child.output()}`));
    }, timeoutMs);
    const check = () => {
      const m = /listening on (http:\/\/[^\s"]+)/.exec(child.output()); // the JSON line or the plain one
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    child.proc.stdout!.on('data', check);
    void child.exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening:\n${child.output()}`));
    });
  });
  return { ...child, url };
}
