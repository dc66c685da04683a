import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { createApp } from './app.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { TicketEvents } from './events.js';
import { auditTicketEvents, type AuditEntry } from './audit/audit.js';
import { rulesListener } from './automation/rules.js';
import { sendMail, type MailMessage } from './mail/mailer.js';
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
import { acquireLock } from './store/lock.js';
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
  await mkdir(dataDir, { recursive: true });
  const lock = acquireLock(dataDir);
  try {
    const configStore = await openConfigStore(dataDir);
    let firstKeys: { pk: string; sk: string } | undefined;
    if (configStore.created && configStore.get().keys.length === 0)
      firstKeys = await createFirstKeys(configStore, options.demo ? () => {} : print);
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

    const deps: Deps = {
      config,
      configStore,
      tickets: { live, test },
      keyRing: () => keyRing,
      logger,
      clock,
      events: new TicketEvents(),
      idempotency: new IdempotencyCache(() => clock().getTime()),
      audit,
      outbox,
      webhookLog,
      version: VERSION,
    };
    outbox.handle('mail', (job) => sendMail(configStore.get().mail, job.payload as MailMessage));
    outbox.handle('webhook', webhookSender(configStore.get, webhookLog, clock));
    // Order matters: rules may change the ticket; mail, webhooks and the audit log see the result.
    deps.events.on(rulesListener(deps));
    deps.events.on(mailListener(deps));
    deps.events.on(webhookListener(deps));
    deps.events.on(auditTicketEvents(audit, clock));
    const scheduler = new Scheduler(deps);
    const app = createApp(deps, demoKeys ? { site: demoSite({ publicKey: demoKeys.pk, apiOrigin: '' }) } : {});
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
          scheduler.stop();
          await new Promise<void>((ok) => {
            server.close(() => ok());
            server.closeIdleConnections();
          });
          // Pending deliveries are durable; a send in flight gets a moment, not the SMTP timeout.
          await Promise.all([live.idle(), test.idle(), Promise.race([outbox.idle(), sleep(2000)])]);
          await Promise.all([live.close(), test.close()]); // the journals written out as ticket files
          await Promise.all([audit.close(), webhookLog.close()]);
          lock.release();
        })();
        return closing;
      },
    };
  } catch (err) {
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

async function createFirstKeys(configStore: ConfigStore, print: (line: string) => void) {
  const pk = createKey('public', 'live', { label: 'created on first start' });
  const sk = createKey('secret', 'live', { label: 'created on first start' });
  await configStore.update((d) => {
    d.keys.push(pk.stored, sk.stored);
  });
  print('Created your first API keys. They are shown once; the secret key is stored only as a hash.');
  print(`  public key (widget, customers): ${pk.key}`);
  print(`  secret key (support, /admin):   ${sk.key}`);
  return { pk: pk.key, sk: sk.key };
}
