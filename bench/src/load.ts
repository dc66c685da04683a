import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** The body of request i (for POSTs). */
  body?: (i: number) => string;
  /** The path of request i, when it varies (for reads of many tickets). */
  path?: (i: number) => string;
  concurrency?: number;
  seconds?: number;
  maxRequests?: number;
  expect?: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/**
 * A small closed-loop load generator over keep-alive connections: `concurrency` clients each send a
 * request as soon as the previous answer arrived, for `seconds` or `maxRequests`, whichever comes
 * first. Loopback only; bounded by construction.
 */
export async function load(o: LoadOptions): Promise<LoadResult> {
  const concurrency = o.concurrency ?? 16;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const base = new URL(o.url);
  const until = performance.now() + (o.seconds ?? 5) * 1000;
  const max = o.maxRequests ?? 200_000;
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  const one = (i: number) =>
    new Promise<void>((done) => {
      const body = o.body?.(i);
      const t0 = performance.now();
      const req = request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method: o.method ?? 'GET',
          path: o.path ? o.path(i) : base.pathname + base.search,
          headers: { ...o.headers, ...(body ? { 'Content-Length': Buffer.byteLength(body) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - t0);
            if (res.statusCode !== (o.expect ?? 200)) errors++;
            done();
          });
        },
      );
      req.on('error', () => {
        errors++;
        done();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until && sent < max) await one(sent++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}
