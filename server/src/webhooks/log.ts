import type { AppendLog } from '../store/append-log.js';

/** One delivery attempt of an outgoing webhook (API.md, webhook_log). */
export interface WebhookLogEntry {
  id: string;
  at: string;
  event: string;
  event_id: string;
  url: string;
  status_code: number | null;
  ok: boolean;
  attempt: number;
  duration_ms: number;
  error: string | null;
}

export type WebhookLog = AppendLog<WebhookLogEntry>;
