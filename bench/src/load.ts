import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface LoadOptions {
  /** Origin and, unless `paths` is given, the one path to request. */
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths requested in turn by each connection (reads of many tickets). */
  paths?: string[];
  connections: number;
  seconds: number;
  /** The status that counts as a success; anything else is an error. */
  expect?: number;
}

export interface LoadResult {
  /** Answers with the expected status. */
  requests: number;
  errors: number;
  seconds: number;
  /** Expected answers per second. */
  rps: number;
  p50: number;
  p99: number;
  /** The generator process's CPU, in cores (1 = one core busy all the time). */
  generatorCpu: number;
  /** The server's CPU over the same time, in cores (from /proc, when its pid is known). */
  serverCpu?: number;
}

/** utime + stime of a process, in seconds (Linux /proc, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Runs `generators` autocannon processes against one server at once (each with the given number
 * of connections) and sums what they got; with `serverPid`, also how much CPU the server used while
 * they ran. One generator is the normal case; two show whether the generator was the limit.
 */
export async function load(o: LoadOptions, serverPid?: number, generators = 1): Promise<LoadResult> {
  let started = 0;
  let cpuAtStart = 0;
  let wallAtStart = 0;
  const onStart = () => {
    if (++started === generators && serverPid) {
      cpuAtStart = cpuSeconds(serverPid);
      wallAtStart = performance.now();
    }
  };
  const results = await Promise.all(Array.from({ length: generators }, () => runChild(o, onStart)));
  const serverCpu = serverPid
    ? (cpuSeconds(serverPid) - cpuAtStart) / ((performance.now() - wallAtStart) / 1000)
    : undefined;
  const requests = results.reduce((s, r) => s + r.requests, 0);
  return {
    requests,
    errors: results.reduce((s, r) => s + r.errors, 0),
    seconds: results[0]!.seconds,
    rps: results.reduce((s, r) => s + r.rps, 0),
    // Latencies of the first generator: with one generator (the normal case) that is all of them.
    p50: results[0]!.p50,
    p99: results[0]!.p99,
    generatorCpu: results.reduce((s, r) => s + r.generatorCpu, 0),
    serverCpu,
  };
}

function runChild(o: LoadOptions, onStart: () => void): Promise<LoadResult> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'load-child.ts')], {
      cwd: join(HERE, '..'),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.stdin.end(JSON.stringify(o));
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (!out.includes('start\n') && (out + chunk).includes('start\n')) onStart();
      out += chunk;
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) fail(new Error(`load generator exited with ${code}: ${out}`));
      else ok(JSON.parse(line) as LoadResult);
    });
  });
}
