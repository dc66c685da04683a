import type { TicketEvent } from '../events/events.js';
import { actorRef, randomToken, type Actor, type KeyMode, type RequestActor, type Ticket } from '../model/index.js';
import { listItem } from '../store/ticket-index.js';
import type { LiveBus, LiveMessage } from './bus.js';

/** Ticket events as the stream names them: the console needs to know created, replied and the rest. */
function streamType(type: TicketEvent['type']): string {
  switch (type) {
    case 'ticket.created':
    case 'ticket.replied':
    case 'ticket.note_added':
    case 'ticket.mentioned':
    case 'ticket.deleted':
      return type;
    default:
      return 'ticket.changed';
  }
}

/** A listener's identity for echo suppression (their own typing). */
export const selfOf = (actor: RequestActor) =>
  actor.kind === 'agent' ? `agent:${actor.agent.id}` : actor.kind === 'key' ? `key:${actor.key.id}` : 'customer';

interface Listener {
  mode: KeyMode;
  self: string;
  /** The credential that opened it (a session, a key) and the client's address: what the caps count. */
  credential: string;
  address: string;
  /** Whether its credential still holds (asked every recheckMs); false ends the stream. */
  holds(): Promise<boolean>;
  /** Writes a chunk; false: the client does not keep up, and the connection is ended. */
  write(chunk: string): boolean;
  end(): void;
}

/** A ticket event as the bus carries it. */
type TicketMessage = Extract<LiveMessage, { kind: 'ticket' }>;

export interface LiveOptions {
  heartbeatMs: number;
  /** How often every stream's credential is checked again: a revoked one ends within this (and a check). */
  recheckMs?: number;
  /**
   * Streams open at once per credential and per client address. A console tab holds one stream, and
   * an agent has a few tabs (10 is plenty; a script needs one or two); an office behind one address
   * may hold a team's tabs (100). Beyond: 429, so one key cannot hold thousands of sockets.
   */
  perCredential?: number;
  perAddress?: number;
  /** Events kept per mode for Last-Event-ID. */
  ringSize?: number;
  /** After the last listener leaves, events are still kept this long, for a reconnect to resume. */
  graceMs?: number;
  now?: () => number;
}

const sse = (event: string, data: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The hub of /v1/events: the listeners connected to this instance, and the newest events of each mode
 * (a bounded ring) for a client that reconnects with Last-Event-ID. Events come from the bus, so every
 * instance sees every instance's events with the same ids. Nobody listening costs nothing: no rows are
 * built (with the local bus), no timer runs.
 */
export class LiveEvents {
  private readonly listeners = new Set<Listener>();
  private readonly elsewhere = new Set<(m: TicketMessage) => void>();
  private readonly rings: Record<KeyMode, { id: string; chunk: string }[]> = { live: [], test: [] };
  private readonly origin = randomToken(10);
  private seq = 0;
  private lastLeft = Number.NEGATIVE_INFINITY;
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private rechecking = false;
  private readonly ringSize: number;
  private readonly graceMs: number;
  private readonly now: () => number;

  constructor(
    private readonly bus: LiveBus & { shared?: boolean },
    private readonly options: LiveOptions,
  ) {
    this.ringSize = options.ringSize ?? 1000;
    this.graceMs = options.graceMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    bus.subscribe((m) => this.deliver(m));
  }

  /** How many streams are open on this instance. */
  get listening() {
    return this.listeners.size;
  }

  /** Whether the heartbeat timer runs (only while someone listens). */
  get beating() {
    return this.heartbeat !== undefined;
  }

  /** Someone listens here, or did a moment ago (and may come back for what they missed). */
  private get wanted() {
    return this.listeners.size > 0 || this.now() - this.lastLeft < this.graceMs;
  }

  /** The TicketEvents listener (it runs last, so it sees the ticket as rules left it). */
  listener() {
    return (e: TicketEvent) =>
      this.tell(
        e.mode,
        streamType(e.type),
        e.ticket,
        e.actor,
        e.type === 'ticket.mentioned' ? e.reply?.mentions : undefined,
      );
  }

  /**
   * Also hands `receive` the ticket events made on other instances (with PostgreSQL), as they arrive:
   * this instance's own reach its listeners in-process, so they are left out here (no second wake).
   */
  fromElsewhere(receive: (m: TicketMessage) => void) {
    this.elsewhere.add(receive);
  }

  /** A change that raises no ticket event (an escalation's actions) still reaches the listeners. */
  changed(mode: KeyMode, ticket: Ticket, actor: Actor) {
    return this.tell(mode, 'ticket.changed', ticket, actor);
  }

  private async tell(mode: KeyMode, type: string, ticket: Ticket, actor: Actor, mentioned?: string[]) {
    // Another instance may have listeners: a shared bus always carries the event.
    if (!this.bus.shared && !this.wanted) return;
    await this.bus.publish({
      kind: 'ticket',
      mode,
      id: `${this.origin}-${++this.seq}`,
      type,
      ticket_id: ticket.id,
      ticket: listItem(ticket),
      by: actorRef(actor),
      ...(mentioned ? { mentioned } : {}),
    });
  }

  /** Presence on a ticket: writing (`typing`) or having it open (`viewing`, the event agent.viewing). */
  typing(actor: RequestActor, ticketId: string, kind: 'typing' | 'viewing' = 'typing') {
    if (!this.bus.shared && this.listeners.size === 0) return Promise.resolve();
    const agent =
      actor.kind === 'agent'
        ? { id: actor.agent.id, name: actor.agent.name }
        : { id: selfOf(actor), name: actor.key.prefix };
    return this.bus.publish({ kind, mode: actor.mode, ticket_id: ticketId, agent, from: selfOf(actor) });
  }

  private deliver(m: LiveMessage) {
    if (m.kind !== 'ticket') {
      const chunk = sse(m.kind === 'typing' ? 'typing' : 'agent.viewing', { ticket_id: m.ticket_id, agent: m.agent });
      for (const l of this.listeners) if (l.mode === m.mode && l.self !== m.from) this.send(l, chunk);
      return;
    }
    if (!m.id.startsWith(`${this.origin}-`)) for (const receive of this.elsewhere) receive(m);
    if (!m.ticket || !this.wanted) return;
    const chunk = sse(m.type, { ticket: m.ticket, by: m.by, ...(m.mentioned ? { mentioned: m.mentioned } : {}) }, m.id);
    const ring = this.rings[m.mode];
    ring.push({ id: m.id, chunk });
    if (ring.length > this.ringSize) ring.splice(0, ring.length - this.ringSize);
    for (const l of this.listeners) if (l.mode === m.mode) this.send(l, chunk);
  }

  private send(l: Listener, chunk: string) {
    if (!l.write(chunk)) this.drop(l);
  }

  private drop(l: Listener) {
    if (!this.listeners.delete(l)) return;
    l.end();
    if (this.listeners.size === 0) {
      this.lastLeft = this.now();
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      clearInterval(this.recheckTimer);
      this.recheckTimer = undefined;
    }
  }

  /**
   * Why a new stream of `credential` from `address` may not open (a cap is reached), else undefined.
   * Counted on this instance: behind a balancer, each instance holds its own share.
   */
  full(credential: string, address: string): 'credential' | 'address' | undefined {
    let byCredential = 0;
    let byAddress = 0;
    for (const l of this.listeners) {
      if (l.credential === credential) byCredential++;
      if (l.address === address) byAddress++;
    }
    if (byCredential >= (this.options.perCredential ?? 10)) return 'credential';
    if (byAddress >= (this.options.perAddress ?? 100)) return 'address';
    return undefined;
  }

  /**
   * Asks every stream whether its credential still holds and ends those whose credential ended
   * (signed out, deactivated, password changed, key revoked, on whichever instance). The client's
   * reconnect then gets 401: the console signs out instead of retrying. One round at a time. Runs
   * every recheckMs, and at once when this instance sees the configuration change (boot.ts).
   */
  async recheck() {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      const open = [...this.listeners];
      const holds = await Promise.all(open.map((l) => l.holds().catch(() => false)));
      open.forEach((l, i) => {
        if (!holds[i]) this.drop(l);
      });
    } finally {
      this.rechecking = false;
    }
  }

  /**
   * Adds a listener and sends what it missed since `lastEventId`, or a `reset` event when that is no
   * longer kept (the client reloads). Returns the function that removes it.
   */
  connect(mode: KeyMode, self: string, lastEventId: string | undefined, l: Omit<Listener, 'mode' | 'self'>) {
    const listener: Listener = { mode, self, ...l };
    if (this.closed) {
      l.end();
      return () => {};
    }
    this.listeners.add(listener);
    let first = 'retry: 3000\n: connected\n\n';
    if (lastEventId !== undefined) {
      const ring = this.rings[mode];
      const at = ring.findIndex((e) => e.id === lastEventId);
      first +=
        at >= 0
          ? ring
              .slice(at + 1)
              .map((e) => e.chunk)
              .join('')
          : sse('reset', {});
    }
    this.send(listener, first);
    this.heartbeat ??= setInterval(() => {
      for (const x of this.listeners) this.send(x, ': ping\n\n');
    }, this.options.heartbeatMs).unref();
    this.recheckTimer ??= setInterval(() => void this.recheck(), this.options.recheckMs ?? 5000).unref();
    return () => this.drop(listener);
  }

  /** Ends every stream (the server stops: it must not wait for them). */
  async close() {
    this.closed = true;
    for (const l of [...this.listeners]) this.drop(l);
    await this.bus.close();
  }
}
