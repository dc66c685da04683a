import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL that counts round trips: each time a client speaks again after
 * the database has answered it on that connection. Bytes pass unchanged; with `listenersDelayMs`
 * what the database sends on a connection that has sent LISTEN reaches the client that much later,
 * in order (a notification still on its way, on a slow or busy connection). `cut(port)` ends the
 * connection PostgreSQL sees on that port without a word to either side (a network blip, a pooler).
 * `freeze()` makes the network silent: every socket stays open and nothing is forwarded either way
 * (a firewall that drops packets, a failover that leaves the old address black-holed), new
 * connections included; `thaw()` forwards what was held, in order, and lets bytes pass again.
 */
export async function pgRelay(
  target: string,
  options: { listenersDelayMs?: number } = {},
): Promise<{
  url: string;
  turns: () => number;
  cut: (port: number) => void;
  freeze: () => void;
  thaw: () => void;
  server: Server;
}> {
  const to = new URL(target);
  let turns = 0;
  let held: [Socket, Buffer][] | undefined; // while frozen: what would have been written, in order
  const send = (to: Socket, chunk: Buffer) => {
    if (held) held.push([to, chunk]);
    else if (!to.destroyed) to.write(chunk);
  };
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
      send(db, chunk);
    });
    db.on('data', (chunk) => {
      answered = true;
      if (delayMs) setTimeout(() => send(client, chunk), delayMs);
      else send(client, chunk);
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
  const freeze = () => {
    held ??= [];
  };
  const thaw = () => {
    const writes = held ?? [];
    held = undefined;
    for (const [to, chunk] of writes) send(to, chunk);
  };
  return { url: relayed.toString(), turns: () => turns, cut, freeze, thaw, server };
}
