import { createHmac } from 'node:crypto';
import { secretFor, type ConfigData, type Ticket } from '../model/index.js';
import type { TicketEventType } from '../events/events.js';
import { newId } from '../model/index.js';
import type { Job, Outbox } from '../outbox/outbox.js';
import type { KeyMode } from '../store/ticket-store.js';
import { fullView } from '../tickets/views.js';
import { postWebhook, type Outcome } from './destination.js';
import type { WebhookLog } from './log.js';

export interface WebhookJob {
  url: string;
  /** The body, fixed at enqueue time so every attempt sends (and signs) the same bytes. */
  body: string;
  event_id: string;
  type: TicketEventType;
}

const WEBHOOK_TIMEOUT_MS = 10_000;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (API.md, "Events"). */
function signature(secret: string, body: string, t: number): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

function webhookSettings(config: ConfigData) {
  const m = config.modules.find((x) => x.name === 'webhooks');
  if (!m || !m.enabled || m.name !== 'webhooks' || !m.settings) return undefined;
  return m.settings;
}

/** Queues one event for a URL; the outbox sends it and retries it (in test mode it only records it). */
export function enqueueWebhook(
  outbox: Outbox,
  url: string,
  type: TicketEventType,
  ticket: Ticket,
  at: Date,
  mode: KeyMode,
) {
  const eventId = newId('evt');
  const body = JSON.stringify({ id: eventId, type, created_at: at.toISOString(), data: { ticket: fullView(ticket) } });
  return outbox.enqueue<WebhookJob>('webhook', { url, body, event_id: eventId, type }, mode);
}

/** What one signed POST came to: the status, and `error` unless it was a 2xx. */
export interface SendResult {
  status: number | null;
  error: string | null;
}

/** One POST of `body`, signed with `secret` (API.md, "Events"), under the delivery's timeout and address rules. */
export async function sendSigned(
  url: string,
  body: string,
  secret: string,
  clock: () => Date,
  opts: { allowLocal: boolean },
): Promise<SendResult> {
  const t = Math.floor(clock().getTime() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'Ticketing-Webhooks/1',
    'Ticketing-Signature': signature(secret, body, t),
  };
  const outcome: Outcome = await postWebhook(url, body, headers, {
    allowLocal: opts.allowLocal,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
  });
  if ('error' in outcome) return { status: null, error: outcome.error };
  return {
    status: outcome.status,
    error: outcome.status < 200 || outcome.status > 299 ? `status ${outcome.status}` : null,
  };
}

/**
 * Sends one attempt, signed with the URL's own secret; every attempt, good or bad, goes to
 * webhook_log. Throws to ask for a retry. A URL the configuration no longer uses is not called.
 */
export function webhookSender(
  config: () => ConfigData,
  log: WebhookLog,
  clock: () => Date,
  opts: { allowLocal: boolean },
) {
  return async (job: Job) => {
    const p = job.payload as WebhookJob;
    const secret = secretFor(config(), p.url);
    const started = performance.now();
    const { status, error } = secret
      ? await sendSigned(p.url, p.body, secret, clock, opts)
      : { status: null, error: 'the URL is no longer configured; not sent' };
    await log.append({
      id: newId('whl'),
      at: clock().toISOString(),
      event: p.type,
      event_id: p.event_id,
      url: p.url,
      status_code: status,
      ok: error === null,
      attempt: job.attempts,
      duration_ms: Math.round(performance.now() - started),
      error,
    });
    if (error && secret) throw new Error(error);
  };
}

/** Every event of API.md the webhooks module subscribes to goes to its URL. */
export function webhookListener(deps: { configStore: { get(): ConfigData }; outbox: Outbox; clock: () => Date }) {
  return async (e: { type: TicketEventType; ticket: Ticket; mode: KeyMode }) => {
    const settings = webhookSettings(deps.configStore.get());
    if (!settings || !settings.events.includes(e.type)) return;
    await enqueueWebhook(deps.outbox, settings.url, e.type, e.ticket, deps.clock(), e.mode);
  };
}
