import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/**
 * A real HTTP receiver on loopback (webhooks, Turnstile's stand-in). `respond` decides each answer;
 * by default 200 with {"ok":true}.
 */
export async function startReceiver(
  respond: (
    req: ReceivedRequest,
    index: number,
  ) => { status: number; body?: unknown; delayMs?: number; headers?: Record<string, string> } = () => ({
    status: 200,
  }),
) {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const entry = { headers: req.headers, body, at: Date.now() };
      received.push(entry);
      const answer = respond(entry, received.length - 1);
      const send = () => {
        res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body ?? { ok: true }));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Polls `check` until it returns true (for deliveries that happen in the background). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, what = 'condition') {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
