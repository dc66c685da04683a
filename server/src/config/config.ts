import { z } from 'zod';
import { emailAddress } from '../model/common.js';

// Environment variables are strings; these helpers accept the usual spellings and refuse the rest,
// so a typo in a setting stops the boot instead of silently meaning "off".
const onOff = z
  .enum(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'on' || v === 'true' || v === '1' || v === 'yes');
const count = z.coerce.number().int().min(1).max(1_000_000);
/** Days a log keeps its entries; 0: for ever. */
const days = z.coerce.number().int().min(0).max(36_500);
const megabytes = z.coerce.number().int().min(1).max(100_000_000);
const MB = 1024 * 1024;

const EnvSchema = z.object({
  TICKETING_DATA_DIR: z.string().min(1).default('./data'),
  TICKETING_HOST: z.string().min(1).default('127.0.0.1'),
  TICKETING_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  TICKETING_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  TICKETING_KEYS: z.string().optional(),
  TICKETING_TRUST_PROXY: onOff.default(false),
  TICKETING_TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  TICKETING_RATE_LIMIT: onOff.default(true),
  TICKETING_RATE_LIMIT_PK_PER_MINUTE: count.default(60),
  TICKETING_RATE_LIMIT_PK_CREATES_PER_10_MINUTES: count.default(10),
  TICKETING_RATE_LIMIT_SK_PER_MINUTE: count.default(600),
  TICKETING_INBOUND_TICKETS_PER_CLIENT: count.default(30),
  TICKETING_KEY_FAILURES_PER_MINUTE: count.default(20),
  TICKETING_QUOTA_TICKET_FILES: count.default(50),
  TICKETING_QUOTA_TICKET_MB: megabytes.default(50),
  TICKETING_QUOTA_TICKET_MESSAGES: count.default(500),
  TICKETING_QUOTA_TICKET_TEXT_KB: count.default(1024),
  TICKETING_QUOTA_UPLOAD_MB_PER_HOUR: megabytes.default(100),
  TICKETING_MIN_FREE_DISK_MB: z.coerce.number().int().min(0).max(1_000_000_000).default(500),
  TICKETING_WEBHOOKS_ALLOW_LOCAL: onOff.default(false),
  TICKETING_TURNSTILE_VERIFY_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  TICKETING_CUSTOMER_MAIL_PER_HOUR: count.default(5),
  TICKETING_RETENTION_AUDIT_DAYS: days.default(365),
  TICKETING_RETENTION_WEBHOOK_LOG_DAYS: days.default(30),
  TICKETING_RETENTION_OUTBOX_LOG_DAYS: days.default(90),
  TICKETING_SCHEDULER_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  TICKETING_STOP_GRACE_SECONDS: z.coerce.number().min(0).max(300).default(5),
  TICKETING_SESSION_IDLE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(12),
  TICKETING_SESSION_MAX_DAYS: z.coerce.number().positive().max(3650).default(30),
  // The address /admin accepts for an agent, so the first admin can be edited there as it is.
  TICKETING_ADMIN_EMAIL: z.string().trim().toLowerCase().pipe(emailAddress()).default('admin@ticketing.localhost'),
  TICKETING_EVENTS_HEARTBEAT_SECONDS: z.coerce.number().min(0.05).max(300).default(25),
  TICKETING_EVENTS_RECHECK_SECONDS: z.coerce.number().min(0.05).max(60).default(5),
  TICKETING_EVENTS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(10_000).default(10),
  TICKETING_EVENTS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(100),
  TICKETING_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
  TICKETING_INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TICKETING_INBOUND_SMTP_HOST: z.string().min(1).optional(),
  TICKETING_INBOUND_MAX_MB: z.coerce.number().int().min(1).max(200).default(25),
  TICKETING_INBOUND_TLS_CERT: z.string().min(1).optional(),
  TICKETING_INBOUND_TLS_KEY: z.string().min(1).optional(),
  TICKETING_INBOUND_PARSE_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(30_000),
  TICKETING_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'a PostgreSQL URL looks like postgres://user:password@host:5432/database')
    .refine((url) => !hostInQuery(url), {
      message:
        "has host in its query (libpq's form, as for a Unix socket folder), which the driver would send to " +
        'PostgreSQL as a setting: give the host in the URL itself, as postgres://user:password@127.0.0.1:5432/database ' +
        '(a Unix socket is not supported)',
      abort: true,
    })
    .refine(
      databaseUrlParses,
      'does not parse: percent-encode these characters in the user name and password: @ as %40, # as %23, / as %2F, ? as %3F, : as %3A, % as %25',
    )
    .optional(),
  TICKETING_DATABASE_POOL: z.coerce.number().int().min(2).max(1000).default(10),
  TICKETING_DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  TICKETING_DATABASE_TLS: z.enum(['off', 'require', 'verify']).optional(),
  TICKETING_DATABASE_CA_FILE: z.string().min(1).optional(),
  TICKETING_DATABASE_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
});

export interface RateLimitConfig {
  enabled: boolean;
  pkPerMinute: number;
  pkCreatesPer10Minutes: number;
  skPerMinute: number;
  /** New tickets by mail per client address (the SMTP receiver's client) and 10 minutes (inbound/mail-in.ts). */
  mailClientCreatesPer10Minutes: number;
  /** Failed key lookups per client address and minute; on even when `enabled` is false (http/auth.ts). */
  keyFailuresPerMinute: number;
}

/** Agents' console sessions (sessions/). */
export interface SessionConfig {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  maxMs: number;
  /** The admin agent the first start creates. */
  adminEmail: string;
}

export interface QuotaConfig {
  /** Files one ticket may hold, its replies' files included. */
  ticketFiles: number;
  /** Bytes of files one ticket may hold. */
  ticketBytes: number;
  /** Messages (its own and replies, notes included) one ticket may hold before a customer's reply is refused. */
  ticketMessages: number;
  /** Characters of message text one ticket may hold before a customer's reply is refused. */
  ticketTextChars: number;
  /** Bytes of files one client address may upload with public keys in an hour. */
  uploadBytesPerHour: number;
}

export interface Config {
  dataDir: string;
  host: string;
  port: number;
  /**
   * The address customers reach the server at (TICKETING_PUBLIC_URL); links in mail point here. Unset:
   * the address the server is actually bound to (Deps.publicUrl), known once it listens.
   */
  publicUrl: string | undefined;
  /** Extra full keys for automation and tests; never written to disk. */
  envKeys: string[];
  trustProxy: boolean;
  /**
   * How many proxies in front of the server append to X-Forwarded-For. Only that many right-most
   * entries are believed; what the client itself sent (further left) is ignored.
   */
  trustProxyHops: number;
  rateLimit: RateLimitConfig;
  quotas: QuotaConfig;
  sessions: SessionConfig;
  /** Below this many free bytes under the data directory, new tickets, replies and files are refused; 0: never. */
  minFreeDiskBytes: number;
  /**
   * Webhooks may call loopback, private and link-local addresses (an operator's choice, as GitLab's
   * "allow requests to the local network"); off by default, so webhook URLs cannot probe the network
   * the server sits in.
   */
  webhooksAllowLocal: boolean;
  logLevel: z.infer<typeof EnvSchema>['TICKETING_LOG_LEVEL'];
  /** Cloudflare's siteverify; tests point it at a local stand-in. */
  turnstileVerifyUrl: string;
  /** How often the scheduler runs (escalation, autoclose, retries); 0 switches the timer off. */
  schedulerMs: number;
  /**
   * On SIGTERM, how long the port stays open at most while /ready answers 503, so that a balancer
   * probing /ready stops sending before connections are refused (shutdown/arrivals.ts); 0: closed at once.
   */
  stopGraceMs: number;
  /** Mails to one customer address that requests with a public key may cause per hour (mail/notify.ts). */
  customerMailPerHour: number;
  /** The built-in mail receiver (inbound/); undefined: off. */
  inboundSmtp: InboundSmtpConfig | undefined;
  /** How long one mail (SMTP or IMAP) may take to parse before it is kept as failed (inbound/parser-thread.ts). */
  inboundParseMs: number;
  /** How often /v1/events sends a comment to keep idle connections (and proxies) open. */
  eventsHeartbeatMs: number;
  /** How often each open /events stream's credential is checked again (a revoked one ends the stream). */
  eventsRecheckMs: number;
  /** Open /events streams allowed per credential (a session, a key) and per client address. */
  eventsPerCredential: number;
  eventsPerAddress: number;
  /** Set: every store is in PostgreSQL and several instances may share it; unset: JSON files in dataDir. */
  database: DatabaseConfig | undefined;
  /** Days each log keeps its entries (retention/); 0: for ever. */
  retentionDays: RetentionDays;
}

export interface RetentionDays {
  audit: number;
  webhookLog: number;
  outboxLog: number;
}

export interface InboundSmtpConfig {
  /** 0: any free port (tests). */
  port: number;
  host: string;
  /** The largest mail accepted, in bytes (SIZE, then 552). */
  maxBytes: number;
  /** PEM files: with both, STARTTLS is offered. */
  tlsCert: string | undefined;
  tlsKey: string | undefined;
}

/** PostgreSQL as the store of every instance that names it (postgres/). */
export interface DatabaseConfig {
  url: string;
  /** Connections per instance. */
  pool: number;
  /** Any statement running longer is cancelled (0: no limit). */
  statementTimeoutMs: number;
  /** off: plain; require: encrypted, certificate not checked; verify: encrypted, certificate and host name checked. Unset: the URL's sslmode decides. */
  tls: 'off' | 'require' | 'verify' | undefined;
  /** The certificate authority for `verify` (default: the system's). */
  caFile: string | undefined;
  /** How long the start waits for a database that does not answer yet. */
  waitSeconds: number;
}

export class ConfigError extends Error {}

/** Whether a database URL names its host in the query (`?host=/var/run/postgresql`), as libpq allows. */
function hostInQuery(url: string): boolean {
  try {
    return new URL(url).searchParams.has('host');
  } catch {
    return false;
  }
}

/**
 * Whether a database URL means what it says: it parses, it holds one `@` at most and no `#` (a
 * PostgreSQL URL has no fragment). A password with a raw `#` or `/` fails to parse ("Invalid URL", and
 * nothing else said); one with a raw `@` parses, but the driver then takes the host from after the
 * first `@` and connects elsewhere; `p@ss/w#rd` parses with the host `ss`, and the rest of the password
 * would be shown as path and fragment in every message that names the database.
 */
function databaseUrlParses(url: string): boolean {
  const rest = url.slice(url.indexOf('://') + 3);
  if (rest.split('@').length > 2 || rest.includes('#')) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

/** Reads the TICKETING_* variables; throws ConfigError listing every bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('TICKETING_') && v !== ''));
  const parsed = EnvSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const envKeys = (e.TICKETING_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  return {
    dataDir: e.TICKETING_DATA_DIR,
    host: e.TICKETING_HOST,
    port: e.TICKETING_PORT,
    publicUrl: e.TICKETING_PUBLIC_URL?.replace(/\/+$/, ''),
    envKeys,
    trustProxy: e.TICKETING_TRUST_PROXY,
    trustProxyHops: e.TICKETING_TRUST_PROXY_HOPS,
    rateLimit: {
      enabled: e.TICKETING_RATE_LIMIT,
      pkPerMinute: e.TICKETING_RATE_LIMIT_PK_PER_MINUTE,
      pkCreatesPer10Minutes: e.TICKETING_RATE_LIMIT_PK_CREATES_PER_10_MINUTES,
      skPerMinute: e.TICKETING_RATE_LIMIT_SK_PER_MINUTE,
      mailClientCreatesPer10Minutes: e.TICKETING_INBOUND_TICKETS_PER_CLIENT,
      keyFailuresPerMinute: e.TICKETING_KEY_FAILURES_PER_MINUTE,
    },
    quotas: {
      ticketFiles: e.TICKETING_QUOTA_TICKET_FILES,
      ticketBytes: e.TICKETING_QUOTA_TICKET_MB * MB,
      ticketMessages: e.TICKETING_QUOTA_TICKET_MESSAGES,
      ticketTextChars: e.TICKETING_QUOTA_TICKET_TEXT_KB * 1024,
      uploadBytesPerHour: e.TICKETING_QUOTA_UPLOAD_MB_PER_HOUR * MB,
    },
    sessions: {
      idleMs: e.TICKETING_SESSION_IDLE_HOURS * 3_600_000,
      maxMs: e.TICKETING_SESSION_MAX_DAYS * 86_400_000,
      adminEmail: e.TICKETING_ADMIN_EMAIL,
    },
    minFreeDiskBytes: e.TICKETING_MIN_FREE_DISK_MB * MB,
    webhooksAllowLocal: e.TICKETING_WEBHOOKS_ALLOW_LOCAL,
    logLevel: e.TICKETING_LOG_LEVEL,
    turnstileVerifyUrl: e.TICKETING_TURNSTILE_VERIFY_URL,
    schedulerMs: e.TICKETING_SCHEDULER_SECONDS * 1000,
    stopGraceMs: e.TICKETING_STOP_GRACE_SECONDS * 1000,
    customerMailPerHour: e.TICKETING_CUSTOMER_MAIL_PER_HOUR,
    inboundSmtp:
      e.TICKETING_INBOUND_SMTP_PORT === undefined
        ? undefined
        : {
            port: e.TICKETING_INBOUND_SMTP_PORT,
            host: e.TICKETING_INBOUND_SMTP_HOST ?? e.TICKETING_HOST,
            maxBytes: e.TICKETING_INBOUND_MAX_MB * MB,
            tlsCert: e.TICKETING_INBOUND_TLS_CERT,
            tlsKey: e.TICKETING_INBOUND_TLS_KEY,
          },
    inboundParseMs: e.TICKETING_INBOUND_PARSE_TIMEOUT_MS,
    eventsHeartbeatMs: e.TICKETING_EVENTS_HEARTBEAT_SECONDS * 1000,
    eventsRecheckMs: e.TICKETING_EVENTS_RECHECK_SECONDS * 1000,
    eventsPerCredential: e.TICKETING_EVENTS_PER_CREDENTIAL,
    eventsPerAddress: e.TICKETING_EVENTS_PER_ADDRESS,
    retentionDays: {
      audit: e.TICKETING_RETENTION_AUDIT_DAYS,
      webhookLog: e.TICKETING_RETENTION_WEBHOOK_LOG_DAYS,
      outboxLog: e.TICKETING_RETENTION_OUTBOX_LOG_DAYS,
    },
    database: e.TICKETING_DATABASE_URL
      ? {
          url: e.TICKETING_DATABASE_URL,
          pool: e.TICKETING_DATABASE_POOL,
          statementTimeoutMs: e.TICKETING_DATABASE_STATEMENT_TIMEOUT_MS,
          tls: e.TICKETING_DATABASE_TLS,
          caFile: e.TICKETING_DATABASE_CA_FILE,
          waitSeconds: e.TICKETING_DATABASE_WAIT_SECONDS,
        }
      : undefined,
  };
}
