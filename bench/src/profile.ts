// `pnpm bench:profile`: where a request's CPU time goes. Runs Ticketing under --cpu-prof, once per
// kind of request (GET /ticket with a secret key, with a public key and email, POST /create), and the
// Koa floor beside it; keeps only the samples taken while the load ran (not start-up or warm-up), and
// writes the top costs per request into BENCHMARKS.md's "Where the time goes" section.
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, type LoadOptions } from './load.js';
import { writeMarkdown } from './markdown-file.js';
import { seed } from './seed.js';
import { baseline, CREATE_BODY, JSON_TYPE, KEYS, PK, ROOT, SK, ticketing, type Running } from './servers.js';

export const PROFILE_HEADING = '## Where the time goes';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const INTERVAL_US = 200;

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Who a frame belongs to: a package, a Ticketing file, a part of Node, or V8 itself. */
function owner(frame: Node['callFrame']): string | undefined {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'V8: garbage collection';
  if (functionName === '(program)') return 'V8: native, outside JS (program)';
  if (!url) return undefined; // a builtin (JSON.stringify, a hash's digest…): charged to its caller
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `npm ${pkg[1]}`;
  const ours = /\/server\/dist\/(.+)$/.exec(url);
  if (ours) return `ticketing ${ours[1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).replace(/^internal\//, '')}`;
  const file = /\/([^/]+)$/.exec(url);
  return file ? `other ${file[1]}` : url;
}

interface Costs {
  /** Sampled busy time (on a loaded machine it includes time the thread waited for a core). */
  busyMs: number;
  requests: number;
  /** CPU the server really used per request (from /proc), in µs: the total the shares divide. */
  cpuUsPerRequest: number;
  self: [string, number][];
  /** By the innermost Ticketing function on the stack, with everything it called. */
  inner: [string, number][];
}

/** Self time by owner (builtins charged to the frame that called them), and by innermost Ticketing function. */
function analyse(profile: Profile, fromUs: number, toUs: number, requests: number, cpuUsPerRequest: number): Costs {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inner = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < fromUs || t > toUs) continue;
    const weight = profile.timeDeltas[i + 1] ?? INTERVAL_US;
    let node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += weight;
    const leaf = node.callFrame.functionName || '(anonymous)';
    let who = owner(node.callFrame);
    let responsible: string | undefined;
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      node = byId.get(id)!;
      const frameOwner = owner(node.callFrame);
      who ??= frameOwner && `${frameOwner} (builtin ${leaf})`;
      if (!responsible && frameOwner?.startsWith('ticketing '))
        responsible = `${node.callFrame.functionName || '(anonymous)'} (${frameOwner.slice(10)}:${node.callFrame.lineNumber + 1})`;
    }
    responsible ??= `no Ticketing frame: ${(who ?? 'V8').split(' (')[0]}`;
    inner.set(responsible, (inner.get(responsible) ?? 0) + weight);
    who ??= `V8 builtin ${leaf}`;
    self.set(who, (self.get(who) ?? 0) + weight);
  }
  const top = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { busyMs: busy / 1000, requests, cpuUsPerRequest, self: top(self), inner: top(inner) };
}

interface Scenario {
  name: string;
  start: (dir: string, views: string, profDir: string) => Promise<Running>;
  options: (server: Running, tickets: { id: string; email: string }[]) => LoadOptions;
}

const read =
  (headers: Record<string, string>, pk: boolean) => (s: Running, tickets: { id: string; email: string }[]) => ({
    url: s.url,
    headers,
    paths: tickets.map((t) => `/v1/ticket?id=${t.id}${pk ? `&email=${encodeURIComponent(t.email)}` : ''}`),
    connections: 16,
    seconds: SECONDS,
  });
const profiled = (profDir: string) => ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-interval=${INTERVAL_US}`];
const ALL_SCENARIOS: Scenario[] = [
  { name: 'GET /ticket (sk)', start: (dir, _v, p) => ticketing(dir, profiled(p)), options: read(SK, false) },
  { name: 'GET /ticket (pk + email)', start: (dir, _v, p) => ticketing(dir, profiled(p)), options: read(PK, true) },
  {
    name: 'POST /create (pk)',
    start: (dir, _v, p) => ticketing(dir, profiled(p)),
    options: (s) => ({
      url: `${s.url}/v1/create`,
      method: 'POST',
      headers: { ...PK, ...JSON_TYPE },
      body: CREATE_BODY,
      expect: 201,
      connections: 16,
      seconds: SECONDS,
    }),
  },
  {
    name: 'Koa floor, GET /ticket (sk)',
    start: (_d, views, p) => baseline('koa-floor.mjs', { VIEWS: views, KEYS: `${KEYS.pk},${KEYS.sk}` }, profiled(p)),
    options: read(SK, false),
  },
];
// PROFILE_ONLY=create (a part of a scenario's name) profiles only the matching ones, for iteration.
const SCENARIOS = ALL_SCENARIOS.filter((s) => !process.env.PROFILE_ONLY || s.name.includes(process.env.PROFILE_ONLY));

const row = (c: Costs, who: string, us: number) => {
  const share = us / (c.busyMs * 1000);
  return `| ${who} | ${(100 * share).toFixed(1)}% | ${(share * c.cpuUsPerRequest).toFixed(1)} |`;
};

function section(results: { name: string; costs: Costs }[]): string {
  const floor = results.find((r) => r.name.startsWith('Koa floor'));
  const perRequest = (c: Costs) => c.cpuUsPerRequest;
  const lines = [
    PROFILE_HEADING,
    '',
    `Written by \`pnpm bench:profile\` (\`bench/src/profile.ts\`): each kind of request profiled alone with \`node --cpu-prof\` (${INTERVAL_US} µs sampling) under the same load as the benchmark, counting only the samples taken while the load ran. CPU µs per request is the CPU time the server process used (from /proc) divided by its answers; the shares are of the sampled busy time, and µs per request is that share of the CPU time. "Self" charges a builtin (JSON.stringify, a hash, a regular expression) to the JavaScript that called it; the second table charges each sample to the innermost Ticketing function on the stack (so a middleware's line includes the library calls it makes, not the Ticketing middleware after it; a request for a route's exact path goes from http/direct-app.ts through the request frame straight to its handler, outside Koa's chain, and only other requests reach Koa's chain and @koa/router).`,
    '',
    '| request | CPU µs per request | vs the Koa floor |',
    '|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${perRequest(r.costs).toFixed(0)} | ${floor && r !== floor ? `${(perRequest(r.costs) / perRequest(floor.costs)).toFixed(2)}x` : ''} |`,
    ),
  ];
  for (const r of results) {
    const c = r.costs;
    lines.push('', `### ${r.name}: ${perRequest(c).toFixed(0)} µs CPU per request (${c.requests} requests)`, '');
    lines.push('| self: who | share | µs/request |', '|---|---|---|');
    for (const [who, us] of c.self.slice(0, 15)) lines.push(row(c, who, us));
    if (!r.name.startsWith('Koa')) {
      lines.push('', '| innermost Ticketing function (with what it called) | share | µs/request |', '|---|---|---|');
      for (const [who, us] of c.inner.slice(0, 15)) lines.push(row(c, who, us));
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main() {
  const results: { name: string; costs: Costs }[] = [];
  for (const scenario of SCENARIOS) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
    const profDir = join(dir, 'profiles');
    const tickets = seed(dir, 1000);
    execSync('sync');
    try {
      // The views for the Koa floor come from a plain Ticketing on the same tickets.
      const views = join(dir, 'views.json');
      if (scenario.name.startsWith('Koa')) {
        const plain = await ticketing(dir);
        const v: { sk: Record<string, unknown>; pk: Record<string, unknown> } = { sk: {}, pk: {} };
        for (const t of tickets)
          v.sk[t.id] = await (await fetch(`${plain.url}/v1/ticket?id=${t.id}`, { headers: SK })).json();
        writeFileSync(views, JSON.stringify(v));
        await plain.stop();
      }
      const server = await scenario.start(dir, views, profDir);
      const options = scenario.options(server, tickets);
      // Every ticket read once, as in the benchmark (which reads them all for the baselines' bodies):
      // the profile shows requests for tickets in memory, not the first read of each file.
      for (const t of tickets) await fetch(`${server.url}/v1/ticket?id=${t.id}`, { headers: SK });
      await load({ ...options, seconds: 2 }, server.pid); // warm-up, not counted
      const from = Number(process.hrtime.bigint() / 1000n);
      const result = await load(options, server.pid);
      const to = Number(process.hrtime.bigint() / 1000n);
      await server.stop();
      const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no profile written for ${scenario.name}`);
      const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as Profile;
      const answered = result.requests + result.errors;
      const cpuUs = (result.serverCpu! * result.seconds * 1e6) / answered;
      const costs = analyse(profile, from, to, answered, cpuUs);
      results.push({ name: scenario.name, costs });
      console.log(`${scenario.name}: ${result.rps.toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs CPU per request`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const text = section(results);
  console.log(`\n${text}`);
  const path = join(ROOT, 'BENCHMARKS.md');
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const at = previous.indexOf(PROFILE_HEADING);
  await writeMarkdown(path, `${(at < 0 ? `${previous.trimEnd()}\n\n` : previous.slice(0, at)) + text}`);
  console.log('BENCHMARKS.md: "Where the time goes" written');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
