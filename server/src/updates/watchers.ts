import type { TicketEvent } from '../events/events.js';
import type { KeyMode } from '../model/index.js';
import { afterCommit } from '../store/unit-of-work.js';
import { shownToCustomer } from '../tickets/views.js';

type Wake = () => void;

/** What wait() takes to watch every ticket of an email address (a verified customer's). */
export const emailKey = (email: string) => `email:${email.trim().toLowerCase()}`;

/**
 * Customers' long polls waiting for something to happen to their tickets (GET /updates). Ticket
 * events wake the polls that watch that ticket; nothing runs while nobody writes. With several
 * instances on one database, another instance's events arrive through the live bus (PostgreSQL
 * NOTIFY, the one /v1/events uses) and wake them too.
 */
export class TicketWatchers {
  private readonly waiting = new Map<string, Set<Wake>>();
  private closed = false;

  /** The ticket-event listener (boot registers it): wakes whoever watches the ticket. */
  readonly listener = (event: TicketEvent) => {
    // A message the customer never sees (an internal note) is nothing for their poll to wake for.
    if (event.reply && !shownToCustomer(event.reply)) return;
    // Once the change is visible to the poll's own read (PostgreSQL: after the request's transaction).
    afterCommit(() => this.wake(event.mode, event.ticket.id, event.ticket.email));
  };

  /**
   * The listener of ticket events made on other instances (boot registers it with the live hub). They
   * arrive after their commit, so the woken poll reads the change. A message without its row (the bus
   * type allows it) still wakes the polls of the ticket's id.
   */
  readonly elsewhere = (m: { mode: KeyMode; ticket_id: string; ticket: { email: string } | null }) => {
    this.wake(m.mode, m.ticket_id, m.ticket?.email);
  };

  private wake(mode: KeyMode, ticketId: string, email: string | undefined) {
    for (const key of [ticketId, ...(email === undefined ? [] : [emailKey(email)])]) {
      const set = this.waiting.get(`${mode}|${key}`);
      if (set) for (const wake of [...set]) wake();
    }
  }

  /**
   * Resolves when one of the tickets changes (`ids`: ticket ids, or emailKey() for every ticket of an
   * address), after `ms`, when `signal` aborts (the client went away)
   * or when the server stops, whichever comes first.
   */
  wait(mode: KeyMode, ids: readonly string[], ms: number, signal: AbortSignal): Promise<void> {
    if (this.closed || signal.aborted || !ids.length) return Promise.resolve();
    return new Promise((resolve) => {
      const keys = ids.map((id) => `${mode}|${id}`);
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        for (const k of keys) {
          const set = this.waiting.get(k);
          set?.delete(wake);
          if (set?.size === 0) this.waiting.delete(k);
        }
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal.addEventListener('abort', wake, { once: true });
      for (const k of keys) {
        let set = this.waiting.get(k);
        if (!set) this.waiting.set(k, (set = new Set()));
        set.add(wake);
      }
    });
  }

  /** How many polls wait now (tests, and the shutdown). */
  get size() {
    return new Set([...this.waiting.values()].flatMap((s) => [...s])).size;
  }

  get stopped() {
    return this.closed;
  }

  /** The server stops: every poll answers now, and new ones do not wait. */
  close() {
    this.closed = true;
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
  }
}
