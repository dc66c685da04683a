import { setTimeout as sleep } from 'node:timers/promises';
import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { ConfigData } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { MailSpool } from './spool.js';

type Imap = ConfigData['mail']['inbound']['imap'];

/** A mailbox without IDLE (or a missed notice) is looked at this often. */
const POLL_MS = 60_000;
/** Waits between connection attempts after a failure, growing to the last. */
const BACKOFF_MS = [1_000, 5_000, 15_000, 60_000];

const configured = (imap: Imap) => Boolean(imap.host && imap.user);

/**
 * Reads the mailbox of `mail.inbound.imap` (imapflow): every mail in the folder (or every unseen one,
 * without a processed folder) is copied into the spool, durably, and only then moved to the processed
 * folder (or flagged \Seen). A crash in between reads it again at the next start, and the pipeline's
 * Message-ID check makes it one ticket all the same. New mail is noticed through IDLE when the server
 * offers it, and by polling otherwise; a server that goes away is reconnected to, with backoff. A
 * change of the settings reconnects with the new ones.
 */
export class ImapReader {
  private stopped = false;
  private client: ImapFlow | undefined;
  private settings = '';
  private wake: (() => void) | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Mails copied into the spool so far (tests, logs). */
  fetched = 0;

  constructor(
    private readonly configStore: ConfigStore,
    private readonly spool: MailSpool,
    private readonly logger: Logger,
  ) {}

  start() {
    this.configStore.onChange((data) => {
      if (JSON.stringify(data.mail.inbound.imap) === this.settings) return;
      // Other settings: reconnect with these (or stop reading when they are gone).
      void this.client?.logout().catch(() => {});
      this.wake?.();
    });
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
    this.running = this.loop();
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.timer);
    this.wake?.();
    await this.polling?.catch(() => {});
    await this.client?.logout().catch(() => {});
    await this.running;
  }

  private async loop() {
    let failures = 0;
    while (!this.stopped) {
      const imap = this.configStore.get().mail.inbound.imap;
      this.settings = JSON.stringify(imap);
      if (!configured(imap)) {
        await this.pause(POLL_MS);
        continue;
      }
      try {
        await this.session(imap, () => (failures = 0));
      } catch (err) {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'mail in: IMAP session ended');
      }
      this.client = undefined;
      if (this.stopped) break;
      await this.pause(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]!);
    }
  }

  /** Waits `ms`, or less when the settings change or the reader stops. */
  private async pause(ms: number) {
    const woken = new Promise<void>((ok) => (this.wake = ok));
    const timer = new AbortController();
    await Promise.race([woken, sleep(ms, undefined, { signal: timer.signal }).catch(() => {})]);
    timer.abort();
    this.wake = undefined;
  }

  /** One connection: open the folder, read what is there, then whatever arrives, until it closes. */
  private async session(imap: Imap, connected: () => void) {
    // Loaded when IMAP is first used, not at every start of the server (some 0.3 s).
    const { ImapFlow } = await import('imapflow');
    const client = new ImapFlow({
      host: imap.host!,
      port: imap.port,
      secure: imap.secure,
      auth: { user: imap.user!, pass: imap.pass ?? '' },
      tls: { rejectUnauthorized: !imap.allow_invalid_certificate },
      // Without TLS from the start, STARTTLS is required before LOGIN (issue 28): a server, or someone
      // on the path, that does not offer it gets no password. allow_plain_auth: used when offered.
      ...(imap.secure || imap.allow_plain_auth ? {} : { doSTARTTLS: true }),
      logger: false,
      // IDLE soon after the last command (imapflow waits 15 s by default): new mail shows at once.
      autoIdleDelay: 500,
      // A mailbox that stops answering is given up on and connected to again.
      socketTimeout: 5 * 60_000,
    });
    this.client = client;
    const closed = new Promise<void>((ok) => client.on('close', () => ok()));
    client.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'mail in: IMAP error'));
    await client.connect();
    connected();
    if (imap.processed_folder) {
      await client.mailboxCreate(imap.processed_folder).catch(() => {}); // it exists already
    }
    await client.mailboxOpen(imap.folder);
    client.on('exists', () => this.kick());
    this.logger.info({ host: imap.host, folder: imap.folder }, 'mail in: reading the mailbox');
    this.kick();
    await closed;
    await this.polling?.catch(() => {});
  }

  /** Reads the folder now; a call while a read is under way makes another one after it. */
  private kick() {
    const client = this.client;
    if (!client || this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = (async () => {
      do {
        this.again = false;
        await this.read(client, this.configStore.get().mail.inbound.imap);
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) =>
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'mail in: IMAP read failed'),
      )
      .finally(() => {
        this.polling = undefined;
        // A kick that came while the last read was ending (after its check for more) gets its read.
        if (this.again) this.kick();
      });
  }

  private async read(client: ImapFlow, imap: Imap) {
    const uids = await client.search(imap.processed_folder ? { all: true } : { seen: false }, { uid: true });
    for (const uid of uids || []) {
      if (this.stopped) return;
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
      if (!message || !message.source) continue;
      // Durable in the spool first; only then is it taken out of the folder.
      await this.spool.accept(message.source, []);
      this.fetched++;
      if (imap.processed_folder) await client.messageMove(String(uid), imap.processed_folder, { uid: true });
      else await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
  }
}
