import type { ActorRef, KeyMode, TicketListItem } from '../model/index.js';
import { afterCommit } from '../store/unit-of-work.js';

/** What goes over /v1/events, as instances pass it to each other. */
export type LiveMessage =
  | {
      kind: 'ticket';
      mode: KeyMode;
      /** The event's id (`id:` line): made by the instance where it happened, the same on every instance. */
      id: string;
      type: string;
      ticket_id: string;
      /** The row; null when it was too large to travel (the receiver reads it from the store). */
      ticket: TicketListItem | null;
      by: ActorRef;
      /** ticket.mentioned: the agents the new note names (their consoles tell them). */
      mentioned?: string[];
    }
  | {
      /** Presence: `typing` (… is replying) or `viewing` (… is viewing, event agent.viewing). */
      kind: 'typing' | 'viewing';
      mode: KeyMode;
      ticket_id: string;
      agent: { id: string; name: string };
      /** The sender's listeners get no echo of their own typing. */
      from: string;
    };

/**
 * How live events reach every instance's listeners: in one process directly (the JSON-file stores),
 * between instances through PostgreSQL's NOTIFY (postgres/pg-live-bus.ts). A message is delivered
 * once the write it tells of is committed.
 */
export interface LiveBus {
  publish(message: LiveMessage): Promise<void>;
  /** One receiver per process (the LiveEvents hub). */
  subscribe(receive: (message: LiveMessage) => void): void;
  close(): Promise<void>;
}

/** The bus of one process: a message goes to the receiver once the request's unit has committed. */
export class LocalBus implements LiveBus {
  private receive: ((message: LiveMessage) => void) | undefined;

  publish(message: LiveMessage) {
    afterCommit(() => this.receive?.(message));
    return Promise.resolve();
  }

  subscribe(receive: (message: LiveMessage) => void) {
    this.receive = receive;
  }

  close() {
    return Promise.resolve();
  }
}
