import nodemailer, { type Transporter } from 'nodemailer';
import type { ConfigData } from '../model/index.js';
import { smtpFailure } from './smtp-failure.js';
import type { AutoSubmitted, Threading } from './threading.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Mail no person wrote (RFC 3834): receivers' autoresponders stay quiet. */
  auto_submitted?: AutoSubmitted;
  /** Message-ID, In-Reply-To, References, Reply-To: fixed when queued (mail/threading.ts). */
  threading?: Threading;
}

type Smtp = ConfigData['mail']['smtp'];

// A silent or slow SMTP server must never hold a delivery forever: connect, greeting and idle
// socket timeouts are set, and the attempt is retried later by the outbox.
const TIMEOUTS = { connectionTimeout: 10_000, socketTimeout: 20_000 };
/**
 * The greeting's timeout: 10 s. TICKETING_TEST_SMTP_GREETING_SECONDS shortens it for the test of a
 * port that never greets (mail-test.test.ts), which would otherwise wait the 10 s in real time; it is
 * read at each connection, so the test sets it for itself alone.
 */
const greetingSeconds = () => Number(process.env.TICKETING_TEST_SMTP_GREETING_SECONDS) || 10;
/**
 * How long one outbox delivery may take in all, its wait for a pooled connection included. A server
 * that trickles its answers (a line every few seconds, never done) resets the socket timeout forever;
 * the delivery is then given up and retried later, instead of holding one of the outbox's workers.
 */
const DELIVERY_LIMIT_MS = 5 * 60_000;
/** The same for "send a test mail", which an admin waits for in the console. */
const TEST_MAIL_LIMIT_MS = 30_000;

/** Runs a send under a time limit, and says so plainly when it is reached. */
async function limited<T>(limitMs: number, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(limitMs);
  try {
    return await send(signal);
  } catch (err) {
    if (signal.aborted) throw new Error(`the SMTP server did not finish within ${limitMs / 1000} s`, { cause: err });
    throw err;
  }
}

/** Connections the pool keeps open to the SMTP server at most; more messages wait their turn. */
export const SMTP_MAX_CONNECTIONS = 3;

/** True when there is somewhere to send mail from and through. */
export const mailConfigured = (mail: ConfigData['mail']) => Boolean(mail.smtp.host && mail.from_address);

/**
 * A literal encoded-word typed into a subject ("=?utf-8?B?…?=") would be decoded by mail clients and
 * show something else than what was typed. Such a subject is sent encoded as a whole (RFC 2047
 * base64 words), so clients show the literal text; other subjects go as they are.
 */
function subjectHeader(subject: string): string {
  if (!subject.includes('=?')) return subject;
  const words: string[] = [];
  let chunk = '';
  // Whole characters only, at most 45 bytes a word (60 base64 characters: lines stay short).
  for (const char of subject) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join(' ');
}

/** True when a password would go to the server without TLS required first (issue 28). */
const needsStartTls = (smtp: Smtp) => Boolean(smtp.user && smtp.pass && !smtp.secure && !smtp.allow_plain_auth);

/** How a transport reaches the SMTP server: the same for the outbox's pool and a test mail. */
function connection(smtp: Smtp) {
  return {
    host: smtp.host!,
    port: smtp.port,
    secure: smtp.secure,
    // No password, no AUTH: a user name alone would log in with an empty password.
    ...(smtp.user && smtp.pass ? { auth: { user: smtp.user, pass: smtp.pass } } : {}),
    // STARTTLS is used whenever the server offers it. With a password it is required: someone on the
    // path can strip STARTTLS from the server's EHLO answer, and the password would follow in clear.
    ...(needsStartTls(smtp) ? { requireTLS: true } : {}),
    ...TIMEOUTS,
    greetingTimeout: greetingSeconds() * 1000,
    // Its certificate must verify.
    tls: { rejectUnauthorized: !smtp.allow_invalid_certificate },
  };
}

/**
 * nodemailer's error for a server that refused STARTTLS ("Error upgrading connection with STARTTLS")
 * says nothing of why the mail stopped there or what to change: this one does.
 */
function plainly(smtp: Smtp, err: unknown): unknown {
  const e = err as { code?: string; command?: string };
  if (!needsStartTls(smtp) || e.code !== 'ETLS' || e.command !== 'STARTTLS') return err;
  return Object.assign(
    new Error(
      'the SMTP server offers no STARTTLS, so the password was not sent: use TLS (secure, port 465), ' +
        'or set allow_plain_auth for a relay on a trusted network',
      { cause: err },
    ),
    { code: e.code },
  );
}

/** What every mail hands nodemailer: the sender, the DKIM signature when configured, the message. */
function mailOptions(mail: ConfigData['mail'], message: MailMessage) {
  const { dkim } = mail;
  return {
    // Signed when a domain, selector and key are set; the receiver checks it against DNS.
    ...(dkim.domain_name && dkim.key_selector && dkim.private_key
      ? { dkim: { domainName: dkim.domain_name, keySelector: dkim.key_selector, privateKey: dkim.private_key } }
      : {}),
    from: { name: mail.from_name, address: mail.from_address! },
    to: message.to,
    subject: subjectHeader(message.subject),
    text: message.text,
    html: message.html,
  };
}

/** What a test mail came to: the SMTP server's last answer, or why it was not sent. */
export interface TestMailResult {
  sent: boolean;
  /** The server's answer to the message ("250 2.0.0 Ok: queued as …"), or its refusal. */
  response: string | null;
  /** Why it was not sent, in one line (never a stack trace). */
  error: string | null;
  duration_ms: number;
}

/**
 * Sends one mail through the stored settings on a connection of its own (not the outbox's pool, so a
 * test neither waits behind queued mail nor leaves a connection open) and reports the server's answer.
 */
export async function sendTestMail(mail: ConfigData['mail'], message: MailMessage): Promise<TestMailResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (!mailConfigured(mail))
    return {
      sent: false,
      response: null,
      error: 'mail is not configured (smtp.host and from_address)',
      duration_ms: 0,
    };
  const transport = nodemailer.createTransport(connection(mail.smtp));
  try {
    const info = (await limited(TEST_MAIL_LIMIT_MS, (signal) =>
      transport.sendMail({ signal, ...mailOptions(mail, message), headers: { 'Auto-Submitted': 'auto-generated' } }),
    )) as { response?: string };
    return { sent: true, response: info.response ?? null, error: null, duration_ms: took() };
  } catch (caught) {
    const err = plainly(mail.smtp, caught);
    // nodemailer's errors carry the server's refusal in `response` ("535 5.7.8 Authentication failed").
    // Anything else is told in fixed words (smtp-failure.ts): no address, port or errno.
    return { sent: false, ...smtpFailure(err, greetingSeconds()), duration_ms: took() };
  } finally {
    transport.close();
  }
}

/**
 * Sends mail over one pooled SMTP transport (a few connections, reused for many messages), built from
 * the settings in force and rebuilt when they change. TLS certificates are verified: a relay whose
 * certificate does not verify gets nothing, the password least of all, unless the settings say
 * `allow_invalid_certificate` (a self-signed internal relay the operator vouches for). A password goes
 * only over TLS (`secure`, or STARTTLS required) unless the settings say `allow_plain_auth`.
 */
export class Mailer {
  private transport: Transporter | undefined;
  private settings = '';

  constructor(private readonly limitMs = DELIVERY_LIMIT_MS) {}

  async send(mail: ConfigData['mail'], message: MailMessage): Promise<void> {
    if (!mailConfigured(mail)) throw new Error('mail is not configured (smtp.host and from_address)');
    const transport = this.transportFor(mail.smtp);
    await limited(this.limitMs, (signal) =>
      transport.sendMail({
        signal,
        ...mailOptions(mail, message),
        ...(message.threading ?? {}),
        // Exchange and Outlook honour their own header rather than Auto-Submitted: no out-of-office to this.
        ...(message.auto_submitted
          ? { headers: { 'Auto-Submitted': message.auto_submitted, 'X-Auto-Response-Suppress': 'All' } }
          : {}),
      }),
    ).catch((err: unknown) => {
      throw plainly(mail.smtp, err);
    });
  }

  private transportFor(smtp: Smtp): Transporter {
    const settings = JSON.stringify(smtp);
    if (this.transport && settings === this.settings) return this.transport;
    // Messages under way on the old pool finish there; new ones take the new settings.
    this.transport?.close();
    this.settings = settings;
    this.transport = nodemailer.createTransport({
      pool: true,
      maxConnections: SMTP_MAX_CONNECTIONS,
      ...connection(smtp),
    });
    return this.transport;
  }

  close() {
    this.transport?.close();
    this.transport = undefined;
  }
}
