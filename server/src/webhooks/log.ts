import type { WebhookLogEntry } from '../model/index.js';
import type { LogStore } from '../store/log-store.js';

export type { WebhookLogEntry };
/** Every delivery attempt of an outgoing webhook (r=webhook_log). */
export type WebhookLog = LogStore<WebhookLogEntry>;
