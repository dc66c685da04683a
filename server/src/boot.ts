import type { DNSResolver as DnsResolver } from 'mailauth';
import { createServer, type Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import type { Middleware } from 'koa';
import { pino, type Logger } from 'pino';
import { batchedStdout } from './startup/batched-stdout.js';
import { firstAdminPasswordPath, forgetFirstAdminPassword } from './startup/first-admin-file.js';
import { turnstileVerifier } from './abuse/turnstile.js';
import { createApp } from './app.js';
import { answerClientError } from './http/client-error.js';
import { auditTicketEvents } from './audit/audit.js';
import { openPostgresStores } from './postgres/open-stores.js';
import { openFileStores, type Stores } from './stores.js';
import { IdempotencyCache } from './tickets/idempotency.js';
import { acquireLock } from './store/lock.js';
import { rulesListener } from './automation/rules.js';
import type { Config } from './config/config.js';
import type { Deps } from './deps.js';
import { TicketWatchers } from './updates/watchers.js';
import { TicketEvents } from './events/events.js';
import { checkEnvKeys, createKey } from './keys/keys.js';
import { Mailer } from './mail/mailer.js';
import { mailListener } from './mail/notify.js';
import { replyMailSender } from './mail/reply-delivery.js';
import { startInbound, type Inbound } from './inbound/start.js';
import { Outbox } from './outbox/outbox.js';
import { Scheduler } from './scheduler/scheduler.js';
import { endSessionsOnAgentChange } from './sessions/revocation.js';
import { createFirstAdmin } from './settings/agents.js';
import type { ConfigStore } from './store/config-store.js';
import type { KeyStore } from './store/key-store.js';
import { makeDir, writeFileDurable } from './store/durable-write.js';
import { StartupError } from './store/startup-error.js';
import { Quotas } from './files/quota.js';
import { closeGate, openGate } from './store/write-gate.js';
import { removeStaleSnapshots } from './backup/snapshot.js';
import { startControlServer, type ControlServer } from './control/control-server.js';
import { prepareDataDir } from './datadir/prepare.js';
import { VERSION } from './version.js';
import { LiveEvents } from './live/live-events.js';
import { Arrivals } from './shutdown/arrivals.js';
import { webhookListener, webhookSender } from './webhooks/deliver.js';
import { LogRetention } from './retention/log-retention.js';
import { consoleAddress } from './startup/console-address.js';
import { startLines, type Say } from './startup/start-lines.js';

/** The first keys of a fresh data directory, in full (they exist in full only now), and its admin agent. */
export interface FirstKeys {
  pk: string;
  sk: string;
  /** The admin agent's email and one-time password (it exists in plain text only now). */
  admin: { id: string; email: string; password: string } | undefined;
}

/**
 * A mode the server can start in beside the plain one: the demo (demo/mode.ts) seeds a fresh
 * directory, serves its pages and prints its keys. Boot knows this seam, not the demo.
 */
export interface BootExtension {
  /** Boot prints the first keys of a fresh directory, unless the extension shows its own. */
  printsFirstKeys: boolean;
  /** Runs once the stores are open, before the app is built. */
  setUp(context: {
    configStore: ConfigStore;
    keys: KeyStore;
    dataDir: string;
    clock: () => Date;
    firstKeys: FirstKeys | undefined;
  }): Promise<{ site?: Middleware; started?(url: string, print: (line: string) => void): Promise<void> }>;
}

export interface BootOptions {
  logger?: Logger;
  clock?: () => Date;
  /**
   * Where the human-readable lines go (the URL, first keys), as they are. By default standard output:
   * at a terminal as they are, elsewhere as JSON log lines (startup/start-lines.ts).
   */
  print?: (line: string) => void;
  extension?: BootExtension;
  /**
   * Whether the printed lines reach a person at a terminal (default: standard output is a TTY). The
   * first secret key is printed only then; a service manager's log (journald keeps standard output)
   * must never hold it.
   */
  terminal?: boolean;
  /** How the server reaches the outside world (Turnstile's siteverify); tests hand in a stand-in. */
  fetch?: typeof globalThis.fetch;
  /** What mail sender checks ask DNS with; tests hand in a stand-in (there is no network here). */
  dns?: DnsResolver;
}

export interface RunningServer {
  url: string;
  server: Server;
  deps: Deps;
  scheduler: Scheduler;
  /** Mail in: the spool, and the SMTP receiver when it is on. */
  inbound: Inbound;
  close(): Promise<void>;
}

// Timeouts against slow clients: headers must arrive within 10 s and a whole request (a 5 MB upload
// on a slow line included) within 2 minutes; idle keep-alive connections close after 5 s.
const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 120_000, keepAliveTimeout: 5_000 };

// On SIGTERM, after the port has closed: how long requests in flight may take to finish, and
// deliveries in flight to end. With the grace (at most TICKETING_STOP_GRACE_SECONDS, 5 by default)
// well inside the unit's TimeoutStopSec=30 before systemd kills.
const DRAIN_MS = 10_000;
const DRAIN_TICK_MS = 50;
const OUTBOX_GRACE_MS = 2_000;

/** Opens the data directory, builds the app and listens. Everything main.ts and the tests start. */
export async function boot(config: Config, options: BootOptions = {}): Promise<RunningServer> {
  // The log is written once per turn of the event loop, not per line (startup/batched-stdout.ts): the
  // access log writes a line for every request. What is printed goes after the lines logged before it.
  const stdout = options.logger ? undefined : batchedStdout();
  const terminal = options.terminal ?? Boolean(process.stdout.isTTY);
  const print = startLines(
    options.print ??
      (terminal
        ? (line) => {
            stdout?.flush();
            process.stdout.write(`${line}\n`);
          }
        : undefined),
    stdout ?? process.stdout,
  );
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined }, stdout!);
  const clock = options.clock ?? (() => new Date());
  checkKeys(config);
  const dataDir = resolve(config.dataDir);
  // With PostgreSQL, instances share the database and own no directory: no lock, no control socket
  // (the key commands act on the database), and the data directory holds at most the first secret key.
  const directory = config.database ? undefined : await openDataDir(dataDir, print);
  try {
    const stores = config.database
      ? await openPostgresStores(config.database, config.envKeys, clock, logger, print)
      : await openFileStores(dataDir, config.envKeys, clock, logger);
    const firstKeys = await firstStart(stores, dataDir, config.sessions.adminEmail, {
      print: options.extension?.printsFirstKeys === false ? undefined : print,
      terminal,
    });
    const extension = await options.extension?.setUp({
      configStore: stores.configStore,
      keys: stores.keys,
      dataDir,
      clock,
      firstKeys,
    });
    // Known once the server listens (a port of 0 is chosen then); nothing reads it before.
    let publicUrl = config.publicUrl ?? '';
    const deps = wireDeps(config, stores, {
      logger,
      clock,
      publicUrl: () => publicUrl,
      fetch: options.fetch ?? fetch,
      dns: options.dns,
    });
    await forgetFirstAdminPassword(stores.configStore, dataDir, logger);
    const mailer = startDeliveries(deps);
    const scheduler = new Scheduler(deps);
    const stopping = new AbortController();
    const closing = new AbortController();
    const app = createApp(deps, {
      ...(extension?.site ? { site: extension.site } : {}),
      stopping: stopping.signal,
      closing: closing.signal,
      // The logger is pino's default one on `stdout` (above): access lines may be written there directly.
      ...(stdout ? { logLines: (line: string) => stdout.write(line) } : {}),
    });
    const { server, url } = await listen(app, config, logger);
    const arrivals = new Arrivals(server);
    publicUrl = config.publicUrl ?? url;
    const control = directory ? await startControlServer(dataDir, deps, url) : undefined;
    const inbound = await startInbound(deps, dataDir);
    logger.info(
      {
        tickets: { live: await stores.live.count({}), test: await stores.test.count({}) },
        outbox: (await stores.jobs.pending()).length,
        store: stores.location,
      },
      'started',
    );
    scheduler.start(config.schedulerMs);
    void deps.outbox.process(); // what was pending before a restart goes out now
    await extension?.started?.(url, print);
    const consoleUrl = consoleAddress(url, config.publicUrl);
    print(`support console: ${consoleUrl}`, { console_url: consoleUrl });
    // The line every harness waits for (API.md); as JSON its msg reads the same, and `url` carries the address.
    print(`listening on ${url}`, { url, console_url: consoleUrl });
    stores.listening?.();
    const close = closer({
      directory,
      server,
      scheduler,
      stores,
      outbox: deps.outbox,
      mailer,
      control,
      inbound,
      stopping,
      closing,
      arrivals,
      graceMs: config.stopGraceMs,
      logger,
      watchers: deps.watchers,
      live: deps.live,
    });
    return { url, server, deps, scheduler, inbound, close };
  } catch (err) {
    directory?.release();
    throw err;
  }
}

/** Takes the data directory (its lock and write gate) and brings its format up to date. */
async function openDataDir(dataDir: string, print: Say) {
  await makeDir(dataDir);
  const lock = acquireLock(dataDir);
  openGate(dataDir);
  const release = () => {
    closeGate(dataDir);
    lock.release();
  };
  try {
    await removeStaleSnapshots(dataDir);
    await prepareDataDir(dataDir, { serverVersion: VERSION, print });
  } catch (err) {
    release();
    throw err;
  }
  return { dataDir, release };
}

/** Keys given in TICKETING_KEYS must be well formed: a typo stops the start with a message. */
function checkKeys(config: Config) {
  const bad = checkEnvKeys(config.envKeys);
  if (bad.length)
    throw new StartupError(
      bad.join('\n'),
      'Keys look like pk_live_ or sk_test_ followed by at least 24 letters and digits.',
    );
}

/** The app's dependencies. */
function wireDeps(
  config: Config,
  stores: Stores,
  parts: {
    logger: Logger;
    clock: () => Date;
    publicUrl: () => string;
    fetch: typeof globalThis.fetch;
    dns: DnsResolver | undefined;
  },
): Deps {
  const { configStore, rateLimiter } = stores;
  return {
    config,
    ...parts,
    configStore,
    tickets: { live: stores.live, test: stores.test },
    files: { live: stores.live, test: stores.test },
    keys: stores.keys,
    sessions: stores.sessions,
    watchers: new TicketWatchers(),
    events: new TicketEvents((err, e) =>
      parts.logger.error({ err, event: e.type, ticket: e.ticket.id }, 'a ticket event listener failed'),
    ),
    idempotency: new IdempotencyCache(() => parts.clock().getTime()),
    live: new LiveEvents(stores.liveBus, {
      heartbeatMs: config.eventsHeartbeatMs,
      recheckMs: config.eventsRecheckMs,
      perCredential: config.eventsPerCredential,
      perAddress: config.eventsPerAddress,
    }),
    audit: stores.audit,
    outbox: new Outbox(stores.jobs, stores.outboxLog, parts.clock, parts.logger),
    unit: stores.unit,
    leadership: stores.leadership,
    storeProbe: stores.probe,
    webhookLog: stores.webhookLog,
    kbFeedback: stores.kbFeedback,
    retention: new LogRetention(
      { audit: stores.audit, webhookLog: stores.webhookLog, outboxLog: stores.outboxLog },
      config.retentionDays,
      parts.clock,
      parts.logger,
      stores.kbFeedback,
    ),
    turnstile: turnstileVerifier({ verifyUrl: config.turnstileVerifyUrl, fetch: parts.fetch }),
    rateLimiter,
    // Attachments are in the database with PostgreSQL: the data directory's free space says nothing.
    quotas: new Quotas(config.database ? { ...config, minFreeDiskBytes: 0 } : config, rateLimiter),
    version: VERSION,
  };
}

/** Senders for the outbox, and the listeners that turn ticket events into deliveries and audit entries. */
function startDeliveries(deps: Deps) {
  const mailer = new Mailer();
  deps.outbox.handle('mail', replyMailSender(deps, mailer));
  deps.outbox.handle(
    'webhook',
    webhookSender(() => deps.configStore.get(), deps.webhookLog, deps.clock, {
      allowLocal: deps.config.webhooksAllowLocal,
    }),
  );
  // Order matters: rules may change the ticket; mail, webhooks and the audit log see the result.
  deps.events.on(rulesListener(deps));
  deps.events.on(mailListener(deps));
  deps.events.on(webhookListener(deps));
  deps.events.on(auditTicketEvents(deps.audit, deps.clock));
  endSessionsOnAgentChange(deps.configStore, deps.sessions, deps.logger);
  // An agent deactivated or given a new password: their open event streams end now, not at the next
  // periodic check (a session's check reads the agent from the configuration).
  deps.configStore.onChange(() => void deps.live.recheck());
  // Last: a customer's poll and the console's stream see the ticket as rules left it.
  deps.events.on(deps.watchers.listener);
  deps.events.on(deps.live.listener());
  // Other instances' events (PostgreSQL) wake this instance's polls too; its own woke them above.
  deps.live.fromElsewhere(deps.watchers.elsewhere);
  return mailer;
}

async function listen(app: ReturnType<typeof createApp>, config: Config, logger: Logger) {
  // Timeouts are enforced on a timer; Node's default of every 30 s would let a slowloris connection
  // hold on for up to 40 s instead of 10.
  const handle = app.callback(); // answers its own errors (ctx.onerror), throws none: the promise never rejects
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => void handle(req, res));
  Object.assign(server, SERVER_TIMEOUTS);
  server.on('clientError', answerClientError(logger));
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(config.port, config.host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { server, url: `http://${host}:${port}` };
}

/**
 * Stops without an outage behind a balancer (docs/deploy.md, "Restarts"): /ready answers 503 at once
 * while the port stays open and new requests are served, until the grace is over or nothing has come
 * in for a moment (an idle server closes at once); then the port closes (a proxy retries a refused
 * connection on another instance), streams and long polls end, requests in flight finish (their
 * writes and queued deliveries with them) for up to DRAIN_MS and answer with Connection: close; then
 * whatever still hangs is cut; a delivery in flight gets a moment, then its attempt is recorded; the
 * lock goes last.
 */
function closer(parts: {
  directory: { release(): void } | undefined;
  server: Server;
  scheduler: Scheduler;
  stores: Stores;
  outbox: Outbox;
  mailer: Mailer;
  control: ControlServer | undefined;
  inbound: Inbound;
  stopping: AbortController;
  closing: AbortController;
  arrivals: Arrivals;
  graceMs: number;
  logger: Logger;
  watchers: TicketWatchers;
  live: LiveEvents;
}) {
  const { directory, server, scheduler, stores, outbox, mailer, control, inbound, stopping, closing } = parts;
  const { arrivals, graceMs, logger, watchers, live } = parts;
  let stop: Promise<void> | undefined;
  return () =>
    (stop ??= (async () => {
      const began = performance.now();
      stopping.abort();
      scheduler.stop();
      await inbound.close(); // no new mail; the one being processed finishes before the stores close
      const reason = await arrivals.portMayClose(graceMs);
      closing.abort();
      watchers.close(); // customers' long polls answer now instead of holding the drain
      const streams = live.close(); // event streams never end by themselves: the drain must not wait for them
      // net's close, not http's: http's would also close every idle keep-alive connection now, under
      // a proxy that may be sending a request on one this very moment (a POST it cannot retry).
      const drained = new Promise<void>((ok) => NetServer.prototype.close.call(server, () => ok()));
      logger.info({ reason, ms: Math.round(performance.now() - began) }, 'port closed');
      await drainConnections(server, drained, arrivals, graceMs);
      await scheduler.idle();
      await Promise.all([stores.live.idle(), stores.test.idle()]);
      await Promise.all([stores.live.close(), stores.test.close()]); // the journals written out as ticket files
      await outbox.stop(OUTBOX_GRACE_MS);
      await control?.close();
      mailer.close();
      await outbox.close();
      await streams;
      await stores.close();
      directory?.release();
    })());
}

/**
 * Waits for the connections of a closed port to end: each answer now ends its own; an idle one is
 * closed once nothing has come in for a moment (or at once without a grace: nothing in front to
 * keep them for); after DRAIN_MS whatever is left is cut.
 */
async function drainConnections(server: Server, drained: Promise<void>, arrivals: Arrivals, graceMs: number) {
  let done = false;
  void drained.then(() => (done = true));
  const deadline = performance.now() + DRAIN_MS;
  while (!done && performance.now() < deadline) {
    if (arrivals.quiet(graceMs)) server.closeIdleConnections();
    await Promise.race([drained, sleep(DRAIN_TICK_MS)]);
  }
  server.closeAllConnections();
  await drained;
}

const firstSecretKeyPath = (dataDir: string) => join(dataDir, 'first-secret-key.txt');

/**
 * The first keys of an empty data directory. The public key is printed (it is public); the secret
 * key only to a terminal. Anywhere else (a service manager's log, a file) it goes into a file that
 * only the owner can read, and the line says where. Nothing is printed when `print` is undefined
 * (the demo shows its keys itself).
 */
async function firstStart(
  { configStore, keys }: Pick<Stores, 'configStore' | 'keys'>,
  dataDir: string,
  adminEmail: string,
  show: { print: Say | undefined; terminal: boolean },
): Promise<FirstKeys | undefined> {
  if (!configStore.created || (await keys.list()).length) {
    // Keys made with the CLI before the first start (docs/deploy.md) leave a directory without an
    // agent: its admin is made all the same, or nobody could ever sign in to the console.
    if (show.print) await firstAdmin(configStore, dataDir, adminEmail, show);
    return undefined;
  }
  const pk = createKey('public', 'live', { label: 'created on first start' });
  const sk = createKey('secret', 'live', { label: 'created on first start' });
  await keys.add(pk.stored, sk.stored);
  const { print } = show;
  if (print) {
    const said = [
      'Created your first API keys. The secret key is shown once and stored only as a hash.',
      `  public key (widget, customers): ${pk.key}`,
    ];
    if (show.terminal) {
      print([...said, `  secret key (support, /admin):   ${sk.key}`]);
    } else {
      const path = firstSecretKeyPath(dataDir);
      await makeDir(dataDir);
      await writeFileDurable(path, `${sk.key}\n`);
      print(
        [
          ...said,
          `  secret key (support, /admin):   in ${path} (readable only by this user;`,
          '    standard output is not a terminal, so it is not printed). Keep it safe, then delete the file.',
        ],
        { public_key: pk.key, secret_key_file: path },
      );
    }
  }
  const admin = await firstAdmin(configStore, dataDir, adminEmail, show);
  return { pk: pk.key, sk: sk.key, admin };
}

/** The admin agent of a directory without agents, its one-time password printed as the secret key is. */
async function firstAdmin(
  configStore: ConfigStore,
  dataDir: string,
  adminEmail: string,
  show: { print: Say | undefined; terminal: boolean },
) {
  const { print } = show;
  const made = await createFirstAdmin(configStore, adminEmail, new Date());
  const admin = made && { id: made.agent.id, email: made.agent.email, password: made.password };
  if (print && admin) {
    const said = [
      'Created the admin agent for the support console (/console/). The password works once: choose',
      'your own at the first sign-in (a new one: ticketing agents reset-password <email>).',
      `  email:    ${admin.email}`,
    ];
    if (show.terminal) {
      print([...said, `  password: ${admin.password}`]);
    } else {
      const path = firstAdminPasswordPath(dataDir);
      await writeFileDurable(path, `email: ${admin.email}\npassword: ${admin.password}\n`);
      print([...said, `  password: in ${path} (readable only by this user; removed once you choose your own).`], {
        email: admin.email,
        password_file: path,
      });
    }
  }
  return admin;
}
