import { connect, createServer, type AddressInfo, type Server } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL that counts round trips: each time a client speaks again after
 * the database has answered it on that connection. Bytes pass unchanged; with `listenersDelayMs`
 * what the database sends on a connection that has sent LISTEN reaches the client that much later,
 * in order (a notification still on its way, on a slow or busy connection).
 */
export async function pgRelay(
  target: string,
  options: { listenersDelayMs?: number } = {},
): Promise<{ url: string; turns: () => number; server: Server }> {
  const to = new URL(target);
  let turns = 0;
  const server = createServer((client) => {
    const db = connect(Number(to.port), to.hostname);
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
  return { url: relayed.toString(), turns: () => turns, server };
}
