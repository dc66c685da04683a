import type { DNSResolver as DnsResolver } from 'mailauth';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { boot, type RunningServer } from '../boot.js';
import { loadConfig } from '../config/config.js';
import { demoMode } from '../demo/mode.js';
import { randomToken } from '../model/index.js';
import { AnswerChecker } from './openapi-check.js';
import { createTestDatabase, dropTestDatabase, testStore } from './test-database.js';

export interface TestKeys {
  pk: string;
  sk: string;
  pkTest: string;
  skTest: string;
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  json?: unknown;
  form?: Record<string, string>;
  multipart?: FormData;
  body?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  base: string;
  url: string;
  keys: TestKeys;
  dataDir: string;
  /** With the PostgreSQL store (TICKETING_TEST_STORE=postgres): the server's database. */
  databaseUrl: string | undefined;
  running: RunningServer;
  logs: string[];
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<Answer<T>>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export const makeKeys = (): TestKeys => ({
  pk: `pk_live_${randomToken(28)}`,
  sk: `sk_live_${randomToken(28)}`,
  pkTest: `pk_test_${randomToken(28)}`,
  skTest: `sk_test_${randomToken(28)}`,
});

/**
 * The store of a test data directory: nothing more with the JSON files (the directory is the store);
 * with PostgreSQL, a database of its own, made on the first start and found again on a restart on the
 * same directory, so a test that restarts a server finds what it stored.
 */
const databases = new Map<string, { name: string; url: string }>();

export async function storeEnv(dataDir: string): Promise<Record<string, string>> {
  if (testStore() !== 'postgres') return { TICKETING_DATA_DIR: dataDir };
  let db = databases.get(dataDir);
  if (!db) databases.set(dataDir, (db = await createTestDatabase()));
  return { TICKETING_DATA_DIR: dataDir, TICKETING_DATABASE_URL: db.url };
}

/** Removes a test data directory and, with PostgreSQL, its database. */
export async function removeStore(dataDir: string) {
  await rm(dataDir, { recursive: true, force: true });
  const db = databases.get(dataDir);
  if (db) {
    databases.delete(dataDir);
    await dropTestDatabase(db.name);
  }
}

/**
 * One checker per distinct document: compiling its schemas costs far more than a test's calls (a
 * second or more on a loaded machine), and the servers of a run serve the same document but for
 * `servers` (their own address), which the checker does not read. A server whose document differs
 * anywhere else gets its own checker, so each answer is still held to what its own server serves.
 */
const checkers = new Map<string, AnswerChecker>();
function checkerFor(doc: Record<string, unknown>): AnswerChecker {
  const key = JSON.stringify({ ...doc, servers: null });
  let checker = checkers.get(key);
  if (!checker) checkers.set(key, (checker = new AnswerChecker(doc)));
  return checker;
}

/**
 * The servers started here that are not closed yet. A worker runs many test files one after the
 * other (vitest.config.ts: no isolation), so a server a failed test left running would go on taking
 * CPU and database connections for the rest of the run: those are closed after each file
 * (test-support/per-file.ts).
 */
const open = new Set<TestServer>();
export async function closeLeftServers() {
  const left = [...open];
  open.clear();
  await Promise.all(left.map((s) => s.close().catch(() => {})));
}

/**
 * A real server on a free loopback port with a fresh temporary data directory (and, when the tests
 * run on PostgreSQL, a fresh database). Keys come in through TICKETING_KEYS, as automation would pass
 * them. Logs are captured so tests can read them.
 */
export async function startServer(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    keys?: TestKeys;
    clock?: () => Date;
    /** What the server fetches the outside world with (Turnstile); a stand-in in tests that need one. */
    fetch?: typeof globalThis.fetch;
    /** What mail sender checks ask DNS with (a stand-in: there is no network here). */
    dns?: DnsResolver;
    /** Another test server's database: this one is a second instance on it (PostgreSQL only). */
    databaseUrl?: string;
    /** On JSON files in the data directory, whichever store the test run is on (the move's source). */
    files?: boolean;
    /** In demo mode (`pnpm demo`): seeded, the demo shop at /, the demo's keys and agent printed to `logs`. */
    demo?: boolean;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'ticketing-test-')));
  const keys = options.keys ?? makeKeys();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const env = options.databaseUrl
    ? { TICKETING_DATA_DIR: dataDir, TICKETING_DATABASE_URL: options.databaseUrl }
    : options.files
      ? { TICKETING_DATA_DIR: dataDir }
      : await storeEnv(dataDir);
  const config = loadConfig({
    ...env,
    TICKETING_PORT: '0',
    TICKETING_KEYS: Object.values(keys).join(','),
    TICKETING_RATE_LIMIT: 'off',
    // Tests must not depend on how full the machine's disk is; the floor's own test sets it.
    TICKETING_MIN_FREE_DISK_MB: '1',
    // No balancer in front: close() closes the port at once.
    TICKETING_STOP_GRACE_SECONDS: '0',
    ...options.env,
  });
  const running = await boot(config, {
    logger: pino({ level: 'info', base: undefined }, sink),
    print: (line) => logs.push(line),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.dns ? { dns: options.dns } : {}),
    ...(options.demo ? { extension: demoMode } : {}),
  });
  const base = `${running.url}/v1`;
  let checker: Promise<AnswerChecker> | undefined;
  // The server's own document, fetched without a key (it is open), checks every answer below.
  const loadChecker = () =>
    (checker ??= fetch(`${base}/openapi.json`)
      .then((res) => res.json())
      .then((doc) => checkerFor(doc as Record<string, unknown>)));

  async function call(method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? keys.sk : opts.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | URLSearchParams | FormData | undefined;
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      body = new URLSearchParams(opts.form);
    } else if (opts.multipart) {
      body = opts.multipart;
    } else if (opts.body !== undefined) {
      body = opts.body;
    }
    const res = await fetch(path.startsWith('http') ? path : `${base}${path}`, {
      method,
      headers,
      body,
      redirect: 'manual',
    });
    const text = await res.text();
    const { pathname } = new URL(res.url || (path.startsWith('http') ? path : `${base}${path}`));
    if (pathname.startsWith('/v1/') && method !== 'OPTIONS') {
      const problems = (await loadChecker()).check(method, pathname.slice(3), res.status, res.headers, text);
      if (problems.length) throw new Error(`The answer does not match /v1/openapi.json:\n${problems.join('\n')}`);
    }
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  const server: TestServer = {
    base,
    url: running.url,
    keys,
    dataDir,
    databaseUrl: env.TICKETING_DATABASE_URL,
    running,
    logs,
    call,
    async close({ keepData = false } = {}) {
      open.delete(server);
      await running.close();
      if (!keepData && !options.dataDir) await removeStore(dataDir);
    },
  };
  open.add(server);
  return server;
}

export const ticketInput = (over: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  subject: 'My order has not arrived',
  message: 'I ordered a teapot last week.',
  ...over,
});

/** Creates a ticket with a public key and returns it. */
export async function createTicket(s: TestServer, over: Record<string, unknown> = {}, key = s.keys.pk) {
  const res = await s.call('POST', '/create', { key, json: ticketInput(over) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; email: string; [k: string]: any };
}

export const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
