import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { DNSResolver as DnsResolver } from 'mailauth';
import type { Outcome } from '../inbound/mail-in.js';
import { startSmtp, type TestSmtp } from './smtp.js';
import { startServer, type TestServer } from './server.js';

export const SUPPORT = 'help@shop.example';

/** A server with the receiver on a free port, mail configured to go out to a test SMTP server. */
export async function startMailServer(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    smtp?: TestSmtp;
    dns?: DnsResolver;
    clock?: () => Date;
  } = {},
): Promise<{ s: TestServer; smtp: TestSmtp; port: number; close(): Promise<void> }> {
  const smtp = options.smtp ?? (await startSmtp());
  const s = await startServer({
    env: { TICKETING_INBOUND_SMTP_PORT: '0', ...options.env },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.dns ? { dns: options.dns } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const res = await s.call('POST', '/admin?r=mail', {
    json: {
      from_name: 'Shop Support',
      from_address: SUPPORT,
      smtp: { host: '127.0.0.1', port: smtp.port },
      email_notify: { customer_on_create: true, customer_on_reply: true },
    },
  });
  if (res.status !== 200) throw new Error(`mail settings: ${res.status}`);
  return {
    s,
    smtp,
    port: s.running.inbound.smtp!.port,
    close: async () => {
      await s.close();
      if (!options.smtp) await smtp.close();
    },
  };
}

/** Sends one mail over SMTP on loopback (nodemailer, as any client would); resolves with the server's answer. */
export async function sendTo(
  port: number,
  mail: { raw: string | Buffer; from: string; to: string[] } | SendMailOptions,
) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    const envelope = 'raw' in mail && mail.raw ? { envelope: { from: mail.from, to: mail.to } } : {};
    return await transport.sendMail({ ...mail, ...envelope } as SendMailOptions);
  } finally {
    transport.close();
  }
}

/** Sends, waits for the spool to work the mail through, and answers what became of it. */
export async function deliver(
  s: TestServer,
  port: number,
  mail: Parameters<typeof sendTo>[1],
): Promise<Outcome | { kind: 'failed'; reason: string }> {
  const spool = s.running.inbound.spool;
  const before = spool.outcomes.length;
  await sendTo(port, mail);
  await spool.idle();
  const after = spool.outcomes.slice(before);
  if (after.length !== 1) throw new Error(`expected one outcome, got ${after.length}`);
  return after[0]!.outcome;
}
