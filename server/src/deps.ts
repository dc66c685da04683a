import type { Logger } from 'pino';
import type { AuditLog } from './audit/audit.js';
import type { Config } from './config.js';
import type { TicketEvents } from './events.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { KeyRing } from './keys/keys.js';
import type { ConfigStore } from './store/config-store.js';
import type { KeyMode, TicketStore } from './store/ticket-store.js';
import type { Outbox } from './outbox/outbox.js';
import type { IdempotencyCache } from './tickets/idempotency.js';
import type { WebhookLog } from './webhooks/log.js';

/** Everything the app needs from outside, passed to createApp so tests can build it with real parts. */
export interface Deps {
  config: Config;
  /** Where links in mail point: TICKETING_PUBLIC_URL, else the address the server is bound to. */
  publicUrl: () => string;
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  keyRing: () => KeyRing;
  logger: Logger;
  clock: () => Date;
  events: TicketEvents;
  idempotency: IdempotencyCache;
  audit: AuditLog;
  /** Durable queue for mail and webhook deliveries. */
  outbox: Outbox;
  webhookLog: WebhookLog;
  /** Request and upload windows per client address (http/rate-limit.ts). */
  rateLimiter: RateLimiter;
  version: string;
}
