import type { Attachment, Reply, Ticket } from './api-types.js';
import type { KeyMode } from './store/ticket-store.js';

export type TicketEventType =
  | 'ticket.created'
  | 'ticket.replied'
  | 'ticket.status_changed'
  | 'ticket.priority_changed'
  | 'ticket.assigned'
  | 'ticket.rated'
  | 'ticket.close_requested'
  | 'ticket.close_resolved'
  | 'ticket.deleted'
  | 'file.uploaded';

export interface Actor {
  kind: 'public' | 'secret' | 'system';
  /** The key's display prefix; null for the system (scheduler, rules). */
  prefix: string | null;
}

export interface TicketEvent {
  type: TicketEventType;
  mode: KeyMode;
  actor: Actor;
  ticket: Ticket;
  previous?: Ticket;
  reply?: Reply;
  file?: Attachment;
}

type Listener = (event: TicketEvent) => void | Promise<void>;

/**
 * What happened to tickets, for the audit log, mail, rules and webhooks. Handlers await emit() before
 * they answer, so whatever a listener queues durably (mail, deliveries) is queued before the customer
 * hears "done".
 */
export class TicketEvents {
  private listeners: Listener[] = [];

  on(listener: Listener) {
    this.listeners.push(listener);
  }

  async emit(event: TicketEvent) {
    for (const l of this.listeners) await l(event);
  }
}
