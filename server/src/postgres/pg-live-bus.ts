import type { LiveBus, LiveMessage } from '../live/bus.js';
import type { KeyMode, TicketListItem } from '../model/index.js';
import type { Database } from './database.js';

type TicketChanged = (mode: KeyMode, id: string, updatedAt: string | undefined) => void;

/** The channel of live events (/v1/events) between instances. */
const LIVE_CHANNEL = 'ticketing_live';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a larger row travels as its id. */
const MAX_PAYLOAD = 7900;

/**
 * Live events between instances: NOTIFY in the transaction of the write they tell of (so they are
 * delivered on commit, and not at all on a rollback), LISTEN on every instance, this one included.
 */
export class PgLiveBus implements LiveBus {
  readonly shared = true;
  private receive: ((message: LiveMessage) => void) | undefined;
  private unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly db: Database,
    private readonly changed: TicketChanged,
  ) {}

  /** `changed` hears of every ticket an event tells of (the ticket stores drop their copy), before the listeners. */
  static async open(db: Database, changed: TicketChanged = () => {}) {
    const bus = new PgLiveBus(db, changed);
    bus.unlisten = await db.listen(LIVE_CHANNEL, (payload) => void bus.received(payload));
    return bus;
  }

  async publish(message: LiveMessage) {
    let payload = JSON.stringify(message);
    if (Buffer.byteLength(payload) >= MAX_PAYLOAD && message.kind === 'ticket') {
      payload = JSON.stringify({ ...message, ticket: null });
    }
    // Nothing waits for its answer: it goes out with the commit.
    await this.db.notify(LIVE_CHANNEL, payload);
  }

  private async received(payload: string) {
    let message: LiveMessage;
    try {
      message = JSON.parse(payload) as LiveMessage;
    } catch {
      return;
    }
    if (message.kind === 'ticket') this.changed(message.mode, message.ticket_id, message.ticket?.updated_at);
    if (message.kind === 'ticket' && message.ticket === null) {
      const [row] = await this.db.sql<{ item: TicketListItem }[]>`
        SELECT item FROM tickets WHERE mode = ${message.mode} AND id = ${message.ticket_id}`.catch(() => []);
      if (!row) return; // deleted meanwhile
      message = { ...message, ticket: row.item };
    }
    this.receive?.(message);
  }

  subscribe(receive: (message: LiveMessage) => void) {
    this.receive = receive;
  }

  async close() {
    await this.unlisten?.();
  }
}
