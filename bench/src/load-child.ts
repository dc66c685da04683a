// One load run, in its own process so the generator never shares an event loop (or a core's
// scheduling) with the orchestrator: reads its options as JSON on stdin (a list of
// thousands of paths is too long for argv), prints "start" when
// autocannon has connected, then one JSON line with the result and its own CPU use.
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './load.js';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const o = JSON.parse(Buffer.concat(chunks).toString()) as LoadOptions;
const requests = (o.paths ?? [new URL(o.url).pathname + new URL(o.url).search]).map((path) => ({
  path,
  method: (o.method ?? 'GET') as 'GET' | 'POST',
  ...(o.body === undefined ? {} : { body: o.body }),
}));
let cpu = process.cpuUsage();
let wall = performance.now();
const result = await new Promise<autocannon.Result>((ok, fail) => {
  const instance = autocannon(
    { url: new URL(o.url).origin, connections: o.connections, duration: o.seconds, headers: o.headers, requests },
    (err, done) => (err ? fail(err) : ok(done)),
  );
  instance.once('start', () => {
    cpu = process.cpuUsage();
    wall = performance.now();
    process.stdout.write('start\n');
  });
});
const used = process.cpuUsage(cpu);
const elapsed = performance.now() - wall;
const statuses = Object.fromEntries(
  Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s?.count ?? 0]),
);
const expected = Number(statuses[String(o.expect ?? 200)] ?? 0);
const out: LoadResult = {
  requests: expected,
  // Every answer other than the expected status counts, and so do connection errors and timeouts.
  errors: result.errors + Object.values(statuses).reduce((s, n) => s + Number(n), 0) - expected,
  seconds: result.duration,
  rps: expected / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  generatorCpu: (used.user + used.system) / 1000 / elapsed,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
