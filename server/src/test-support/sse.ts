/** One server-sent event as a client parses it (comments kept, for heartbeats). */
export interface SseEvent {
  id?: string;
  event: string;
  data: any;
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Resolves with the first event (after those already seen when `from` is given) matching `test`. */
  next(test: (e: SseEvent) => boolean, ms?: number, from?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens an event stream with fetch and parses it as EventSource would (id, event, data, comments). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const push = (e: SseEvent) => {
    events.push(e);
    for (const w of waiters) w();
  };
  let endedResolve!: () => void;
  const ended = new Promise<void>((ok) => (endedResolve = ok));
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const e: SseEvent = { event: 'message', data: undefined };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) e.comment = line.slice(1).trim();
              else if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length) e.data = JSON.parse(data.join('\n'));
            if (e.comment !== undefined && !data.length && e.id === undefined) e.event = 'comment';
            push(e);
          }
        }
      } catch {
        // aborted by close()
      }
      endedResolve();
      for (const w of waiters) w();
    })();
  } else {
    await res.body?.cancel();
    endedResolve();
  }
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: res.status,
    headers: res.headers,
    events,
    ended,
    next(test, ms = 5000, from = 0) {
      return new Promise((ok, fail) => {
        const check = () => {
          const found = events.slice(from).find(test);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            ok(found);
          } else if (done) {
            waiters.delete(check);
            clearTimeout(timer);
            fail(new Error('the stream ended'));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          fail(new Error(`no matching event within ${ms} ms; got ${JSON.stringify(events.map((e) => e.event))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
