import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { createApp } from './app.js';
import { RateLimiter } from './http/rate-limit.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { TicketEvents } from './events.js';
import { auditTicketEvents, type AuditEntry } from './audit/audit.js';
import { rulesListener } from './automation/rules.js';
import { Mailer, type MailMessage } from './mail/mailer.js';
import { mailListener } from './mail/notify.js';
import { Outbox } from './outbox/outbox.js';
import { Scheduler } from './scheduler/scheduler.js';
import { webhookListener, webhookSender } from './webhooks/deliver.js';
import { checkEnvKeys, createKey, KeyRing } from './keys/keys.js';
import { AppendLog } from './store/append-log.js';
import type { WebhookLogEntry } from './webhooks/log.js';
import { openConfigStore, type ConfigStore } from './store/config-store.js';
import { readDemoKeys, writeDemoKeys } from './demo/keys-file.js';
import { seedDemo } from './demo/seed.js';
import { demoSite } from './demo/site.js';
import { FileTicketStore } from './store/file-ticket-store.js';
import { makeDir, writeFileDurable } from './store/durable-write.js';
import { acquireLock } from './store/lock.js';
import { closeGate, openGate } from './store/write-gate.js';
import { removeStaleSnapshots } from './backup/snapshot.js';
import { startControlServer } from './control/control-server.js';
import { prepareDataDir } from './datadir/prepare.js';
import { StartupError } from './store/startup-error.js';
import { IdempotencyCache } from './tickets/idempotency.js';
import { VERSION } from './version.js';

export interface BootOptions {
  logger?: Logger;
  clock?: () => Date;
  /** Where the human-readable lines go (the URL, first keys). */
  print?: (line: string) => void;
  /** Demo mode: seed a fresh directory, serve demo-site at /, keep and print the demo keys. */
  demo?: boolean;
  /**
   * Whether the printed lines reach a person at a terminal (default: standard output is a TTY). The
   * first secret key is printed only then; a service manager's log (journald keeps standard output)
   * must never hold it.
   */
  terminal?: boolean;
}

export interface RunningServer {
  url: string;
  server: Server;
  deps: Deps;
  scheduler: Scheduler;
  close(): Promise<void>;
}

// Timeouts against slow clients: headers must arrive within 10 s and a whole request (a 5 MB upload
// on a slow line included) within 2 minutes; idle keep-alive connections close after 5 s.
export const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 120_000, keepAliveTimeout: 5_000 };

// On SIGTERM: how long requests in flight may take to finish, and deliveries in flight to end. Well
// inside systemd's default 90 s before it kills.
const DRAIN_MS = 10_000;
const OUTBOX_GRACE_MS = 2_000;

/** Opens the data directory, builds the app and listens. Everything main.ts and the tests start. */
export async function boot(config: Config, options: BootOptions = {}): Promise<RunningServer> {
  const print = options.print ?? ((line) => process.stdout.write(`${line}\n`));
  const logger = options.logger ?? pino({ level: config.logLevel, base: undefined });
  const clock = options.clock ?? (() => new Date());
  const badKeys = checkEnvKeys(config.envKeys);
  if (badKeys.length)
    throw new StartupError(
      badKeys.join('\n'),
      'Keys look like pk_live_ or sk_test_ followed by at least 24 letters and digits.',
    );

  const dataDir = resolve(config.dataDir);
  await makeDir(dataDir);
  const lock = acquireLock(dataDir);
  openGate(dataDir);
  try {
    await removeStaleSnapshots(dataDir);
    await prepareDataDir(dataDir, { serverVersion: VERSION, print });
    const configStore = await openConfigStore(dataDir);
    let firstKeys: { pk: string; sk: string } | undefined;
    if (configStore.created && configStore.get().keys.length === 0) {
      // The demo keeps and prints its keys itself (demo-keys.json).
      const show = options.demo ? undefined : { print, terminal: options.terminal ?? Boolean(process.stdout.isTTY) };
      firstKeys = await createFirstKeys(configStore, dataDir, show);
    }
    if (options.demo && configStore.created) await seedDemo(configStore, clock());
    const demoKeys = options.demo ? await ensureDemoKeys(dataDir, configStore, firstKeys) : undefined;
    const [live, test] = await Promise.all([
      FileTicketStore.open(dataDir, 'live'),
      FileTicketStore.open(dataDir, 'test'),
    ]);

    const [audit, webhookLog] = await Promise.all([
      AppendLog.open<AuditEntry>(join(dataDir, 'audit.jsonl')),
      AppendLog.open<WebhookLogEntry>(join(dataDir, 'webhook_log.jsonl')),
    ]);

    const outbox = await Outbox.open(dataDir, clock, logger);

    let keyRing = new KeyRing(configStore.get().keys, config.envKeys);
    configStore.onChange((data) => (keyRing = new KeyRing(data.keys, config.envKeys)));

    // Known once the server listens (a port of 0 is chosen then); nothing reads it before.
    let publicUrl = config.publicUrl ?? '';
    const deps: Deps = {
      config,
      publicUrl: () => publicUrl,
      configStore,
      tickets: { live, test },
      keyRing: () => keyRing,
      logger,
      clock,
      events: new TicketEvents((err, e) =>
        logger.error({ err, event: e.type, ticket: e.ticket.id }, 'a ticket event listener failed'),
      ),
      idempotency: new IdempotencyCache(() => clock().getTime()),
      audit,
      outbox,
      webhookLog,
      rateLimiter: new RateLimiter(() => clock().getTime()),
      version: VERSION,
    };
    const mailer = new Mailer();
    outbox.handle('mail', (job) => mailer.send(configStore.get().mail, job.payload as MailMessage));
    outbox.handle(
      'webhook',
      webhookSender(configStore.get, webhookLog, clock, { allowLocal: config.webhooksAllowLocal }),
    );
    // Order matters: rules may change the ticket; mail, webhooks and the audit log see the result.
    deps.events.on(rulesListener(deps));
    deps.events.on(mailListener(deps));
    deps.events.on(webhookListener(deps));
    deps.events.on(auditTicketEvents(audit, clock));
    const scheduler = new Scheduler(deps);
    const stopping = new AbortController();
    const site = demoKeys ? demoSite({ publicKey: demoKeys.pk, apiOrigin: '' }) : undefined;
    const app = createApp(deps, { site, stopping: stopping.signal });
    // Timeouts are enforced on a timer; Node's default of every 30 s would let a slowloris connection
    // hold on for up to 40 s instead of 10.
    const server = createServer({ connectionsCheckingInterval: 1000 }, app.callback());
    Object.assign(server, SERVER_TIMEOUTS);
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(config.port, config.host, () => ok());
    });
    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    publicUrl = config.publicUrl ?? url;
    const control = await startControlServer(dataDir, deps, url);
    logger.info({ tickets: { live: live.size, test: test.size }, outbox: outbox.pending.length, dataDir }, 'started');
    scheduler.start(config.schedulerMs);
    void outbox.process(); // what was pending before a restart goes out now
    if (demoKeys) {
      await writeDemoKeys(dataDir, { publicKey: demoKeys.pk, secretKey: demoKeys.sk, url });
      print('');
      print(`Ticketing demo: open ${url}/ in your browser (the shop page with the widget).`);
      print(`  public key (in the pages): ${demoKeys.pk}`);
      print(`  secret key (support):      ${demoKeys.sk}`);
      print('Play support from another terminal:');
      print('  pnpm demo:tickets                        list tickets');
      print('  pnpm demo:reply <ticket id> "Thanks!"    answer as support');
      print('  pnpm demo:close <ticket id>              close a ticket (the customer can then rate it)');
      print('');
    }
    print(`listening on ${url}`);

    let closing: Promise<void> | undefined;
    return {
      url,
      server,
      deps,
      scheduler,
      close() {
        closing ??= (async () => {
          stopping.abort(); // /ready answers 503, every answer closes its connection
          scheduler.stop();
          // No new connections; requests in flight finish (their writes and queued deliveries with
          // them), for up to DRAIN_MS, then whatever still hangs is cut.
          const drained = new Promise<void>((ok) => server.close(() => ok()));
          server.closeIdleConnections();
          const timer = new AbortController();
          await Promise.race([drained, sleep(DRAIN_MS, undefined, { signal: timer.signal }).catch(() => {})]);
          timer.abort();
          server.closeAllConnections();
          await drained;
          await Promise.all([live.idle(), test.idle()]);
          await Promise.all([live.close(), test.close()]); // the journals written out as ticket files
          // Queued deliveries are on disk; one in flight gets a moment, then its attempt is recorded.
          await outbox.stop(OUTBOX_GRACE_MS);
          await control.close();
          mailer.close();
          await Promise.all([audit.close(), webhookLog.close(), outbox.close()]);
          closeGate(dataDir);
          lock.release();
        })();
        return closing;
      },
    };
  } catch (err) {
    closeGate(dataDir);
    lock.release();
    throw err;
  }
}

/** The demo's keys: the first keys of a fresh demo directory, else those it kept, else a new pair. */
async function ensureDemoKeys(
  dataDir: string,
  configStore: ConfigStore,
  first: { pk: string; sk: string } | undefined,
) {
  if (first) return first;
  const kept = readDemoKeys(dataDir);
  if (kept) return { pk: kept.publicKey, sk: kept.secretKey };
  const pk = createKey('public', 'live', { label: 'demo' });
  const sk = createKey('secret', 'live', { label: 'demo' });
  await configStore.update((d) => void d.keys.push(pk.stored, sk.stored));
  return { pk: pk.key, sk: sk.key };
}

export const firstSecretKeyPath = (dataDir: string) => join(dataDir, 'first-secret-key.txt');

/**
 * The first keys of an empty data directory. The public key is printed (it is public); the secret
 * key only to a terminal. Anywhere else (a service manager's log, a file) it goes into a file that
 * only the owner can read, and the line says where.
 */
async function createFirstKeys(
  configStore: ConfigStore,
  dataDir: string,
  show: { print: (line: string) => void; terminal: boolean } | undefined,
) {
  const pk = createKey('public', 'live', { label: 'created on first start' });
  const sk = createKey('secret', 'live', { label: 'created on first start' });
  await configStore.update((d) => {
    d.keys.push(pk.stored, sk.stored);
  });
  if (show) {
    const { print } = show;
    print('Created your first API keys. The secret key is shown once and stored only as a hash.');
    print(`  public key (widget, customers): ${pk.key}`);
    if (show.terminal) {
      print(`  secret key (support, /admin):   ${sk.key}`);
    } else {
      const path = firstSecretKeyPath(dataDir);
      await writeFileDurable(path, `${sk.key}\n`);
      print(`  secret key (support, /admin):   in ${path} (readable only by this user;`);
      print('    standard output is not a terminal, so it is not printed). Keep it safe, then delete the file.');
    }
  }
  return { pk: pk.key, sk: sk.key };
}
