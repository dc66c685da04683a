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
 * `freeze(port)` and `thaw(port)` do the same to the one connection PostgreSQL sees on that port;
 * `ports()` lists the connections' ports. With `record`, `said(text)` tells whether a client has sent
 * `text` (a statement's words) on any connection (without it nothing is kept, and it says false).
 */
export async function pgRelay(
  target: string,
  options: { listenersDelayMs?: number; record?: boolean } = {},
): Promise<{
  url: string;
  turns: () => number;
  cut: (port: number) => void;
  freeze: (port?: number) => void;
  thaw: (port?: number) => void;
  ports: () => number[];
  said: (text: string) => boolean;
  server: Server;
}> {
  const to = new URL(target);
  let turns = 0;
  let sent = ''; // what clients sent, as text, for said() (with `record`)
  let held: [Socket, Buffer][] | undefined; // while frozen: what would have been written, in order
  const heldOf = new Map<number, [Socket, Buffer][]>(); // the same for one frozen connection, by its port
  const send = (to: Socket, chunk: Buffer, port?: number) => {
    const queue = held ?? (port === undefined ? undefined : heldOf.get(port));
    if (queue) queue.push([to, chunk]);
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
      if (options.record) sent += chunk.toString('latin1');
      if (answered) turns++;
      answered = false;
      send(db, chunk, db.localPort);
    });
    db.on('data', (chunk) => {
      answered = true;
      if (delayMs) setTimeout(() => send(client, chunk, db.localPort), delayMs);
      else send(client, chunk, db.localPort);
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
  const freeze = (port?: number) => {
    if (port === undefined) held ??= [];
    else if (!heldOf.has(port)) heldOf.set(port, []);
  };
  const thaw = (port?: number) => {
    const writes = (port === undefined ? held : heldOf.get(port)) ?? [];
    if (port === undefined) held = undefined;
    else heldOf.delete(port);
    for (const [to, chunk] of writes) send(to, chunk, port);
  };
  const ports = () => [...pairs.keys()];
  const said = (text: string) => sent.includes(text);
  return { url: relayed.toString(), turns: () => turns, cut, freeze, thaw, ports, said, server };
}
