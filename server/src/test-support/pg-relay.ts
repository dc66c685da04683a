import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL that counts round trips: each time a client speaks again after
 * the database has answered it on that connection. Bytes pass unchanged; with `listenersDelayMs`
 * what the database sends on a connection that has sent LISTEN reaches the client that much later,
 * in order (a notification still on its way, on a slow or busy connection). `cut(port)` ends the
 * connection PostgreSQL sees on that port without a word to either side (a network blip, a pooler).
 */
export async function pgRelay(
  target: string,
  options: { listenersDelayMs?: number } = {},
): Promise<{ url: string; turns: () => number; cut: (port: number) => void; server: Server }> {
  const to = new URL(target);
  let turns = 0;
  const pairs = new Map<number, [Socket, Socket]>(); // by the port PostgreSQL sees the client on
  const server = createServer((client) => {
    const db = connect(Number(to.port), to.hostname);
    db.on('connect', () => pairs.set(db.localPort!, [client, db]));
    let answered = true;
    let delayMs = 0;
    client.on('data', (chunk) => {
      if (options.listenersDelayMs && /\blisten\b/i.test(chunk.toString('latin1'))) delayMs = options.listenersDelayMs;
      if (answered) turns++;
      answered = false;
      db.write(chunk);
    });
    db.on('data', (chunk) => {
      answered = true;
      if (delayMs) setTimeout(() => client.destroyed || client.write(chunk), delayMs);
      else client.write(chunk);
    });
    client.on('close', () => db.destroy());
    db.on('close', () => client.destroy());
    client.on('error', () => db.destroy());
    db.on('error', () => client.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const relayed = new URL(target);
  relayed.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cut = (port: number) => {
    for (const socket of pairs.get(port) ?? []) socket.destroy();
  };
  return { url: relayed.toString(), turns: () => turns, cut, server };
}
