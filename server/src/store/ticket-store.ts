import type { Ticket, TicketListItem } from '../api-types.js';
import type { IdempotencyRecord } from '../tickets/idempotency.js';
import type { AutomationFacts, ListFilter } from './ticket-index.js';

export type KeyMode = 'live' | 'test';

export interface FileBlob {
  id: string;
  data: Uint8Array;
}

/** What a change to a ticket produces: the new record and any attachment bytes to store with it. */
export interface TicketChange {
  ticket: Ticket;
  files?: FileBlob[];
  /** The Idempotency-Key of the request making the change, stored in the same write. */
  idempotency?: IdempotencyRecord | undefined;
}

/**
 * Tickets of one mode (live or test). The file implementation keeps one JSON file per ticket; another
 * implementation (a database) can take its place without the features noticing.
 */
export interface TicketStore {
  readonly mode: KeyMode;
  readonly size: number;
  has(id: string): boolean;
  get(id: string): Promise<Ticket | undefined>;
  /** Stores the files, then the ticket; acknowledged only when both are on disk. */
  create(change: TicketChange): Promise<Ticket>;
  /** Serialised per ticket: `change` sees the latest record. Undefined when the ticket does not exist. */
  update(id: string, change: (current: Ticket) => TicketChange | Promise<TicketChange>): Promise<Ticket | undefined>;
  remove(id: string): Promise<boolean>;
  list(filter: ListFilter, limit: number, offset: number): { items: TicketListItem[]; total: number };
  /** Every ticket's list view with the facts the scheduler needs, oldest first. */
  scan(): IterableIterator<{ item: TicketListItem } & AutomationFacts>;
  readFile(ticketId: string, fileId: string): Promise<Buffer | undefined>;
  /** The ticket an Idempotency-Key (scope and key) was stored with, while that ticket exists. */
  recallIdempotency(key: string): Promise<{ ticketId: string; hash: string; at: string } | undefined>;
  /**
   * Makes everything acknowledged so far readable as the store's own files (a store that commits
   * through a journal writes it out); a backup calls it before its snapshot.
   */
  flush(): Promise<void>;
  /** Resolves once every write in flight has finished. */
  idle(): Promise<void>;
}
