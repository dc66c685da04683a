import type { TurnstileVerifier } from '../abuse/turnstile.js';
import type { AuditLog } from '../audit/audit.js';
import type { TicketEvents } from '../events/events.js';
import type { Quotas } from '../files/quota.js';
import type { KeyMode } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { FileStore, TicketStore } from '../store/ticket-store.js';
import type { IdempotencyCache } from './idempotency.js';

/** What the ticket routes need from the app (the app's Deps provides it). */
export interface TicketDeps {
  configStore: ConfigStore;
  /** Live and test tickets, apart: an actor only ever sees the store of its mode. */
  tickets: Record<KeyMode, TicketStore>;
  /** Attachment bytes, apart by mode as the tickets are. */
  files: Record<KeyMode, FileStore>;
  events: TicketEvents;
  idempotency: IdempotencyCache;
  turnstile: TurnstileVerifier;
  /** Files and bytes per ticket and per address and hour, and the free-space floor. */
  quotas: Quotas;
  clock: () => Date;
  /** Configuration changes a ticket route makes (/spam's blocklists) are recorded as /admin's are. */
  audit: AuditLog;
}
