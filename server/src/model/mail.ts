import { z } from 'zod';
import { emailAddress } from './common.js';

export const SmtpSchema = z.object({
  host: z.string().max(255).nullable().default(null),
  port: z.number().int().min(1).max(65535).default(587),
  secure: z.boolean().default(false),
  user: z.string().max(255).nullable().default(null),
  /**
   * Write-only. Omitted keeps the stored one while host, port, user, secure, allow_invalid_certificate
   * and allow_plain_auth stay the same (a changed destination forgets it: settings/secrets.ts); null
   * or "" removes it.
   */
  pass: z.string().max(1000).nullable().optional(),
  /**
   * Skips checking the server's TLS certificate (a self-signed internal relay). Off: a certificate that
   * does not verify stops the delivery, so a password never goes to a server that is not the one named.
   */
  allow_invalid_certificate: z.boolean().default(false),
  /**
   * Sends the password without TLS when the server offers no STARTTLS (a relay on this host or a
   * trusted network). Off: with `secure` false, STARTTLS is required before AUTH, so a network that
   * strips STARTTLS from the server's answer gets no password (issue 28).
   */
  allow_plain_auth: z.boolean().default(false),
});
export type Smtp = z.infer<typeof SmtpSchema>;
/** SMTP settings as they are read: the password only as `pass_set`. */
export const SmtpViewSchema = SmtpSchema.omit({ pass: true }).extend({ pass_set: z.boolean() });

export const EmailNotifySchema = z.object({
  customer_on_create: z.boolean().default(true),
  customer_on_reply: z.boolean().default(true),
  agents_on_create: z.boolean().default(false),
  agents_on_customer_reply: z.boolean().default(false),
  agent_emails: z.array(emailAddress()).max(100).default([]),
});

const oneLine = (s: string) => !/[\r\n]/.test(s);

/** A mailbox the server reads over IMAP (inbound/imap-reader.ts); off while `host` is null. */
export const ImapSchema = z.object({
  host: z.string().max(255).nullable().default(null),
  port: z.number().int().min(1).max(65535).default(993),
  /** TLS from the start (993); false: STARTTLS when offered (143). */
  secure: z.boolean().default(true),
  user: z.string().max(255).nullable().default(null),
  /** Write-only, as smtp.pass (settings/secrets.ts). */
  pass: z.string().max(1000).nullable().optional(),
  allow_invalid_certificate: z.boolean().default(false),
  /** As smtp.allow_plain_auth: off, STARTTLS is required before LOGIN when `secure` is false. */
  allow_plain_auth: z.boolean().default(false),
  folder: z.string().min(1).max(200).default('INBOX'),
  /**
   * Where a processed mail is moved; null: it stays and is flagged \Seen (then only unseen mail is
   * read, so a person reading the mailbox must not mark mail read before the server has it).
   */
  processed_folder: z.string().min(1).max(200).nullable().default('Processed'),
});
export const ImapViewSchema = ImapSchema.omit({ pass: true }).extend({ pass_set: z.boolean() });

/** DKIM signing of outgoing mail (nodemailer's dkim option); off while `domain_name` is null. */
export const DkimSchema = z.object({
  domain_name: z.string().max(255).nullable().default(null),
  key_selector: z.string().max(63).nullable().default(null),
  /** Write-only: the PEM private key, kept while domain and selector stay the same. */
  private_key: z.string().max(10_000).nullable().optional(),
});
export const DkimViewSchema = DkimSchema.omit({ private_key: true }).extend({ private_key_set: z.boolean() });

export const InboundSchema = z.object({ imap: ImapSchema.prefault({}) });

export const MailSchema = z.object({
  from_name: z.string().max(100).refine(oneLine, 'must be on one line').default('Support'),
  from_address: emailAddress().nullable().default(null),
  smtp: SmtpSchema.prefault({}),
  email_notify: EmailNotifySchema.prefault({}),
  /** Mail in: the mailbox the server reads (the SMTP receiver is TICKETING_INBOUND_SMTP_PORT). */
  inbound: InboundSchema.prefault({}),
  dkim: DkimSchema.prefault({}),
  /**
   * Domains whose agents' answers by mail (to the signed Reply-To of their notifications) are taken on
   * the token alone; empty: each such answer needs an aligned DKIM signature or SPF pass (inbound/agent-reply.ts).
   */
  agent_reply_domains: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .max(253)
        .regex(
          /^(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/,
          'must be a domain name, such as shop.example',
        ),
    )
    .max(100)
    .default([])
    .describe(
      'agents whose address is on one of these domains may answer a notification by mail with its signed ' +
        'Reply-To alone; others need their mail DKIM-signed or SPF-passed for their domain',
    ),
});
export type Mail = z.infer<typeof MailSchema>;
export const MailViewSchema = MailSchema.extend({
  smtp: SmtpViewSchema,
  inbound: InboundSchema.extend({ imap: ImapViewSchema }),
  dkim: DkimViewSchema,
});

/** POST /admin/mail-test: where the test mail goes. */
export const MailTestInputSchema = z.object({ to: emailAddress() });
/** What the SMTP server answered a test mail, sent through the stored settings. */
export const MailTestResultSchema = z
  .object({
    sent: z.boolean(),
    response: z.string().nullable().describe("the SMTP server's answer to the message, or its refusal"),
    error: z.string().nullable().describe('why it was not sent, in one line'),
    duration_ms: z.number().int().min(0),
  })
  .meta({ id: 'MailTestResult' });
