import type { Deps } from '../deps.js';
import { ImapReader } from './imap-reader.js';
import { MailIn } from './mail-in.js';
import { ParserThread } from './parser-thread.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';
import { MailSpool } from './spool.js';

/** How often the spool is worked through again (a mail whose processing failed for a store error). */
const RETRY_MS = 60_000;

export interface Inbound {
  spool: MailSpool;
  /** The built-in receiver, when TICKETING_INBOUND_SMTP_PORT is set. */
  smtp: SmtpReceiver | undefined;
  /** The mailbox reader (idle while mail.inbound.imap names no host). */
  imap: ImapReader;
  close(): Promise<void>;
}

/**
 * Mail in: the spool under the data directory (worked through now, for what a crash left), the
 * SMTP receiver when it is configured, and the IMAP reader. Without the receiver the spool is still opened: mail a crash
 * left there is processed.
 */
export async function startInbound(deps: Deps, dataDir: string): Promise<Inbound> {
  const parser = new ParserThread(deps.config.inboundParseMs, deps.logger);
  const spool = new MailSpool(dataDir, new MailIn(deps, parser), deps.logger);
  await spool.open();
  const smtp = deps.config.inboundSmtp
    ? await startSmtpReceiver(deps.config.inboundSmtp, deps.configStore, spool, deps.logger)
    : undefined;
  const imap = new ImapReader(deps.configStore, spool, deps.logger);
  imap.start();
  const timer = setInterval(() => void spool.drain(), RETRY_MS);
  timer.unref();
  return {
    spool,
    smtp,
    imap,
    async close() {
      clearInterval(timer);
      await smtp?.close();
      await imap.stop();
      await spool.idle();
      await parser.close();
    },
  };
}
