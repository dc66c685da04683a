import nodemailer from 'nodemailer';
import type { ConfigData } from '../admin/schema.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

// A silent or slow SMTP server must never hold a delivery forever: connect, greeting and idle
// socket timeouts are set, and the attempt is retried later by the outbox.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** True when there is somewhere to send mail from and through. */
export const mailConfigured = (mail: ConfigData['mail']) => Boolean(mail.smtp.host && mail.from_address);

/** Sends one message over the SMTP server configured now (settings may change between attempts). */
export async function sendMail(mail: ConfigData['mail'], message: MailMessage): Promise<void> {
  if (!mailConfigured(mail)) throw new Error('mail is not configured (smtp.host and from_address)');
  const transport = nodemailer.createTransport({
    host: mail.smtp.host!,
    port: mail.smtp.port,
    secure: mail.smtp.secure,
    // No password, no AUTH: a user name alone would log in with an empty password.
    ...(mail.smtp.user && mail.smtp.pass ? { auth: { user: mail.smtp.user, pass: mail.smtp.pass } } : {}),
    ...TIMEOUTS,
    // Loopback and internal relays often have self-signed certificates; STARTTLS is still used when offered.
    tls: { rejectUnauthorized: false },
  });
  try {
    await transport.sendMail({
      from: { name: mail.from_name, address: mail.from_address! },
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
  } finally {
    transport.close();
  }
}
