import type { Actor, Attachment, KeyMode, Reply, Ticket, TicketEventType } from '../model/index.js';

export type { TicketEventType };

export interface TicketEvent {
  type: TicketEventType;
  mode: KeyMode;
  actor: Actor;
  ticket: Ticket;
  previous?: Ticket;
  reply?: Reply;
  file?: Attachment;
  /**
   * Set when the change came in by mail (inbound/): who sent it, the mail's Message-ID, and the files
   * it carried that were not attached (each named with the reason), for the answer to say so.
   */
  mail?: { from: string; messageId: string | null; refused: string[] };
}

/** A listener may return the ticket as it changed it (rules do); later listeners see that one. */
type Listener = (event: TicketEvent) => void | Ticket | undefined | Promise<void | Ticket | undefined>;

/**
 * What happened to tickets, for the audit log, mail, rules and webhooks. Handlers await emit() before
 * they answer, so whatever a listener queues durably (mail, deliveries) is queued before the customer
 * hears "done".
 *
 * Events are emitted after the ticket is durably written, so a listener that fails (a disk error
 * while queueing a mail) must not turn the answer into an error: the client would retry and file the
 * ticket twice. The failure is reported to `onError` (logged) and the other listeners still run.
 */
export class TicketEvents {
  private listeners: Listener[] = [];

  constructor(private readonly onError: (err: unknown, event: TicketEvent) => void) {}

  on(listener: Listener) {
    this.listeners.push(listener);
  }

  /** Runs every listener in order and answers the ticket as they left it. */
  async emit(event: TicketEvent): Promise<Ticket> {
    for (const l of this.listeners) {
      try {
        const changed = await l(event);
        if (changed) event.ticket = changed;
      } catch (err) {
        this.onError(err, event);
      }
    }
    return event.ticket;
  }
}
