import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { InboundSmtpConfig } from '../config/config.js';
import { isSupportAddress } from '../mail/threading.js';
import type { ConfigStore } from '../store/config-store.js';
import type { MailSpool } from './spool.js';

/** An SMTP reply with a code (smtp-server sends `responseCode` and the message). */
const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** Connections at once: a small shop's MX hands over a few at a time; more wait (421 and retry). */
const MAX_CONNECTIONS = 100;
/**
 * Connections at once from one client address: one client holding every connection open locked out
 * every other sender (issue 28). A mail server delivers over a handful at most; beyond, 421 and retry.
 */
const MAX_PER_CLIENT = 5;
/** A connection silent this long is closed (an MTA between commands waits far less). */
const IDLE_MS = 30_000;

export interface SmtpReceiver {
  port: number;
  close(): Promise<void>;
}

/**
 * The built-in receiver (TICKETING_INBOUND_SMTP_PORT): takes mail for the support address and its
 * `+…` reply addresses only (anything else 550 at RCPT, so it is no open relay and no backscatter
 * source), refuses mail above the size limit, offers STARTTLS when a certificate is configured, and
 * says 250 only once the mail is on disk in the spool. One client address holds at most
 * MAX_PER_CLIENT connections, and an idle one is closed after IDLE_MS.
 */
export async function startSmtpReceiver(
  config: InboundSmtpConfig,
  configStore: ConfigStore,
  spool: MailSpool,
  logger: Logger,
): Promise<SmtpReceiver> {
  const tls = config.tlsCert && config.tlsKey;
  // Open connections per client address, and the sessions counted there (a refused one is not).
  const perClient = new Map<string, number>();
  const counted = new Set<string>();
  const options: SMTPServerOptions = {
    name: hostname(),
    banner: 'Ticketing mail receiver',
    size: config.maxBytes,
    maxClients: MAX_CONNECTIONS,
    // No AUTH: this is a final destination, not a submission server.
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ? { key: readFileSync(config.tlsKey!), cert: readFileSync(config.tlsCert!) } : {}),
    logger: false,
    socketTimeout: IDLE_MS,
    closeTimeout: 1_000,
    onConnect(session, done) {
      const open = perClient.get(session.remoteAddress) ?? 0;
      if (open >= MAX_PER_CLIENT)
        return done(smtpError(421, '4.7.0 Too many connections from your address; try again later'));
      perClient.set(session.remoteAddress, open + 1);
      counted.add(session.id);
      done();
    },
    onClose(session) {
      if (!counted.delete(session.id)) return;
      const open = (perClient.get(session.remoteAddress) ?? 1) - 1;
      if (open > 0) perClient.set(session.remoteAddress, open);
      else perClient.delete(session.remoteAddress);
    },
    onRcptTo(address, _session, done) {
      const support = configStore.get().mail.from_address;
      if (!support) return done(smtpError(451, '4.3.0 Mail is not configured here yet; try again later'));
      if (!isSupportAddress(address.address, support)) return done(smtpError(550, '5.1.1 No such recipient here'));
      done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => done(err));
      stream.on('end', () => {
        if (stream.sizeExceeded) return done(smtpError(552, '5.3.4 Message too big'));
        const raw = Buffer.concat(chunks);
        // 250 only once the mail is durable: a crash after it loses nothing.
        spool
          .accept(
            raw,
            session.envelope.rcptTo.map((r) => r.address),
            // Who connected, for the sender's SPF check (inbound/verify-sender.ts).
            {
              clientIp: session.remoteAddress,
              helo: session.hostNameAppearsAs || null,
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null,
            },
          )
          .then(
            () => done(),
            (err: unknown) => {
              logger.error({ err }, 'mail in: could not spool a mail; the sender will retry');
              done(smtpError(451, '4.3.0 Could not store the message; try again later'));
            },
          );
      });
    },
  };
  const server = new SMTPServer(options);
  server.on('error', (err) => logger.warn({ err }, 'mail in: SMTP connection error'));
  await new Promise<void>((ok, fail) => {
    server.server.once('error', fail);
    server.listen(config.port, config.host, () => ok());
  });
  const port = (server.server.address() as AddressInfo).port;
  logger.info({ port, host: config.host, starttls: Boolean(tls) }, 'mail in: SMTP receiver listening');
  return { port, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}
