import type { LogRetention } from './retention/log-retention.js';
import type { DNSResolver as DnsResolver } from 'mailauth';
import type { Logger } from 'pino';
import type { AdminDeps } from './admin/routes.js';
import type { Config } from './config/config.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { KeyStore } from './store/key-store.js';
import type { AuditStore } from './store/log-store.js';
import type { OnboardingDeps } from './onboarding/routes.js';
import type { OpenApiDeps } from './openapi/routes.js';
import type { Outbox } from './outbox/outbox.js';
import type { PortalDeps } from './portal/routes.js';
import type { Leadership } from './scheduler/leadership.js';
import type { SessionRouteDeps } from './sessions/session-agent.js';
import type { TicketDeps } from './tickets/deps.js';
import type { LiveDeps } from './live/routes.js';
import type { UnitOfWork } from './store/unit-of-work.js';
import type { UpdatesDeps } from './updates/routes.js';
import type { LinkDeps } from './links/routes.js';
import type { HelpCentreDeps } from './helpcentre/routes.js';
import type { ReportDeps } from './reports/routes.js';

/**
 * Everything the app needs from outside, passed to createApp so tests can build it with real parts.
 * Each feature declares what it uses (TicketDeps, AdminDeps, …); this is all of them together.
 */
export interface Deps
  extends
    TicketDeps,
    PortalDeps,
    AdminDeps,
    OpenApiDeps,
    SessionRouteDeps,
    OnboardingDeps,
    UpdatesDeps,
    LiveDeps,
    LinkDeps,
    HelpCentreDeps,
    ReportDeps {
  config: Config;
  /** The audit log: every feature appends; /admin?r=audit searches it. */
  audit: AuditStore;
  /** The API keys (the bearer credential looks them up by hash). */
  keys: KeyStore;
  logger: Logger;
  /** Durable queue for mail and webhook deliveries. */
  outbox: Outbox;
  /** Request and upload windows per client address (http/rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** How the server reaches the outside world (Turnstile's siteverify); tests hand in a stand-in. */
  fetch: typeof globalThis.fetch;
  /** What DNS lookups of mail sender checks go through (inbound/verify-sender.ts); absent: the system's DNS. */
  dns: DnsResolver | undefined;
  /** A request's writes (ticket, deliveries, audit entry) as one unit: every write route runs in one. */
  unit: UnitOfWork;
  /** Whether this instance runs the scheduler's timed work (one leader among instances). */
  leadership: Leadership;
  /** /ready's store check when the store is not the data directory (PostgreSQL answers). */
  storeProbe: (() => Promise<void>) | undefined;
  /** Removes log entries past their retention (the scheduler's leader runs it). */
  retention: LogRetention;
}
