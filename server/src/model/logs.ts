import { z } from 'zod';
import { isoTime } from './common.js';
import { KEY_MODES } from './keys.js';
import { TICKET_EVENTS } from './tickets.js';

/** Who did it, as the audit log records it: a key by its prefix, an agent by id and name, the system. */
export const AuditActorSchema = z.union([
  z.object({ kind: z.enum(['public', 'secret']), prefix: z.string() }),
  z.object({ kind: z.literal('agent'), id: z.string(), name: z.string() }),
  z.object({ kind: z.literal('system'), prefix: z.null() }),
]);
export type AuditActor = z.infer<typeof AuditActorSchema>;

/** One line of data/audit.jsonl: every write by a secret key, and what the system did on its behalf. */
export const AuditEntrySchema = z
  .object({
    id: z.string().describe('aud_…'),
    at: isoTime,
    actor: AuditActorSchema,
    action: z.string().describe('e.g. config.update, ticket.status_changed, rule.set_status'),
    target: z.string().nullable(),
    /** Ids and changed values only; never a secret, a message body or a password. */
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** One delivery attempt of an outgoing webhook (r=webhook_log). */
export const WebhookLogEntrySchema = z
  .object({
    id: z.string().describe('whl_…'),
    at: isoTime,
    event: z.enum(TICKET_EVENTS),
    event_id: z.string().describe('evt_…, the same for every attempt of one delivery'),
    url: z.string(),
    status_code: z.number().int().nullable(),
    ok: z.boolean(),
    attempt: z.number().int().min(1),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookLogEntry' });
export type WebhookLogEntry = z.infer<typeof WebhookLogEntrySchema>;

export const JOB_KINDS = ['mail', 'webhook'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * What became of a delivery that is not (or no longer) pending: given up after its last retry, or
 * never sent, because it came from test mode or went over the per-recipient limit of customer mail.
 */
export const SETTLED_STATES = ['failed', 'suppressed_test', 'suppressed_limit'] as const;
export type SettledState = (typeof SETTLED_STATES)[number];

/**
 * One line of r=outbox: where a delivery goes and how it fares. Never a mail body or a webhook body
 * (they hold customers' words and whole tickets), never a secret.
 */
export const OutboxEntrySchema = z
  .object({
    id: z.string().describe('evt_…'),
    kind: z.enum(JOB_KINDS),
    state: z.enum(['queued', ...SETTLED_STATES]),
    mode: z.enum(KEY_MODES),
    to: z.array(z.string()).nullable().describe('mail: the recipients'),
    subject: z.string().nullable().describe('mail: the subject'),
    url: z.string().nullable().describe('webhook: the URL'),
    event: z.string().nullable().describe('webhook: the event type'),
    attempts: z.number().int().min(0),
    next_attempt_at: isoTime.nullable().describe('queued deliveries only'),
    last_error: z.string().nullable(),
    created_at: isoTime,
    at: isoTime.describe('when it was queued, or settled'),
  })
  .meta({ id: 'OutboxEntry' });
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

/** POST /admin/webhook-test: what the signed test event to the webhooks module's URL came to. */
export const WebhookTestResultSchema = z
  .object({
    url: z.string().nullable().describe("the webhooks module's URL, as stored; null: none is set"),
    event_id: z.string().describe('evt_…, the id in the test event'),
    ok: z.boolean().describe('the receiver answered 2xx'),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookTestResult' });

/** POST /admin/outbox-retry: a waiting delivery by its id (evt_…), or a webhook's event id from webhook_log. */
export const OutboxRetryInputSchema = z.object({ id: z.string().min(1).max(100) });
export const OutboxRetryAnswerSchema = z.object({
  id: z.string().describe('the delivery (outbox id)'),
  next_attempt_at: isoTime.describe('now: the outbox sends it at once'),
});

/** r=audit's filters (all optional, all must hold) and its cursor. */
export interface AuditFilter {
  /** An agent's id or name (any case), a key's prefix, or a kind (`system`, `secret`, `public`, `agent`). */
  actor?: string | undefined;
  /** The action, or its start: `ticket.` finds every ticket action. */
  action?: string | undefined;
  target?: string | undefined;
  /** ISO times: from inclusive, to exclusive. */
  from?: string | undefined;
  to?: string | undefined;
  /** The id of the last entry of the page before: the next page starts after it (older). */
  before?: string | undefined;
}

/** Whether an entry passes the filters (the JSON store's search; PostgreSQL asks the same in SQL). */
export function auditMatches(f: AuditFilter): (e: AuditEntry) => boolean {
  const actor = f.actor?.toLowerCase();
  return (e) => {
    if (actor !== undefined) {
      const a = e.actor as { kind: string; id?: string; name?: string; prefix?: string | null };
      const hit = a.id === f.actor || a.prefix === f.actor || a.kind === actor || a.name?.toLowerCase() === actor;
      if (!hit) return false;
    }
    if (f.action !== undefined && !e.action.startsWith(f.action)) return false;
    if (f.target !== undefined && e.target !== f.target) return false;
    if (f.from !== undefined && e.at < f.from) return false;
    if (f.to !== undefined && e.at >= f.to) return false;
    return true;
  };
}
