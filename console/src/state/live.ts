import { signal } from '@preact/signals';
import type { Api } from '../api/client.js';
import type { TicketEvent, TypingEvent } from '../api/types.js';

/** `reconnecting`: the stream was open and dropped; EventSource tries again (shown to the agent). */
export type LiveState = 'off' | 'connecting' | 'open' | 'reconnecting' | 'down';

export interface LiveHandlers {
  ticket(type: string, data: TicketEvent): void;
  typing(data: TypingEvent): void;
  /** agent.viewing: a colleague has a ticket open (same data as typing). */
  viewing(data: TypingEvent): void;
  /** The server could not replay what was missed (or the stream was down): reload everything. */
  reset(): void;
  /** The stream was refused: the session may have ended. */
  refused(): void;
}

const TICKET_EVENTS = [
  'ticket.created',
  'ticket.changed',
  'ticket.replied',
  'ticket.note_added',
  'ticket.mentioned',
  'ticket.deleted',
];

/**
 * The server's event stream (/v1/events, EventSource with the session cookie). EventSource reconnects
 * by itself with Last-Event-ID after a dropped connection; a refused one (401, 404) closes it, and we
 * try again with a growing pause.
 */
export function createLive(api: Api, on: LiveHandlers) {
  const state = signal<LiveState>('off');
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let pause = 2000;
  let wasDown = false;

  function connect() {
    stop();
    if (typeof EventSource === 'undefined') return;
    state.value = 'connecting';
    const es = new EventSource(api.eventsUrl());
    source = es;
    /** An event id seen on this stream: a reconnect sends it as Last-Event-ID, and the server replays. */
    let resumable = false;
    es.addEventListener('open', () => {
      // Events sent while we were away are lost if the stream was closed (a new EventSource starts
      // afresh), or if it dropped before it carried any event: then no Last-Event-ID goes back.
      const missed = wasDown || (state.value === 'reconnecting' && !resumable);
      state.value = 'open';
      pause = 2000;
      wasDown = false;
      if (missed) on.reset();
    });
    for (const type of TICKET_EVENTS)
      es.addEventListener(type, (e) => {
        if ((e as MessageEvent).lastEventId) resumable = true;
        const data = parse<TicketEvent>(e);
        if (data?.ticket) on.ticket(type, data);
      });
    es.addEventListener('typing', (e) => {
      const data = parse<TypingEvent>(e);
      if (data?.ticket_id) on.typing(data);
    });
    es.addEventListener('agent.viewing', (e) => {
      const data = parse<TypingEvent>(e);
      if (data?.ticket_id) on.viewing(data);
    });
    es.addEventListener('reset', () => on.reset());
    es.addEventListener('error', () => {
      if (es.readyState !== EventSource.CLOSED) {
        // Dropped (server restart, network): EventSource comes back with Last-Event-ID by itself.
        state.value = state.value === 'connecting' ? 'connecting' : 'reconnecting';
        return;
      }
      state.value = 'down';
      wasDown = true;
      on.refused();
      retry = setTimeout(connect, pause);
      pause = Math.min(pause * 2, 60_000);
    });
  }
  function stop() {
    clearTimeout(retry);
    source?.close();
    source = null;
    state.value = 'off';
  }
  return { state, connect, stop };
}

function parse<T>(e: Event): T | null {
  try {
    return JSON.parse((e as MessageEvent<string>).data) as T;
  } catch {
    return null;
  }
}
