import type { Deps } from '../deps.js';
import { MailIn } from './mail-in.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';
import { MailSpool } from './spool.js';

/** How often the spool is worked through again (a mail whose processing failed for a store error). */
const RETRY_MS = 60_000;

export interface Inbound {
  spool: MailSpool;
  /** The built-in receiver, when TICKETING_INBOUND_SMTP_PORT is set. */
  smtp: SmtpReceiver | undefined;
  close(): Promise<void>;
}

/**
 * Mail in: the spool under the data directory (worked through now, for what a crash left), and the
 * SMTP receiver when it is configured. Without the receiver the spool is still opened: mail a crash
 * left there is processed.
 */
export async function startInbound(deps: Deps, dataDir: string): Promise<Inbound> {
  const spool = new MailSpool(dataDir, new MailIn(deps), deps.logger);
  await spool.open();
  const smtp = deps.config.inboundSmtp
    ? await startSmtpReceiver(deps.config.inboundSmtp, deps.configStore, spool, deps.logger)
    : undefined;
  const timer = setInterval(() => void spool.drain(), RETRY_MS);
  timer.unref();
  return {
    spool,
    smtp,
    async close() {
      clearInterval(timer);
      await smtp?.close();
      await spool.idle();
    },
  };
}
