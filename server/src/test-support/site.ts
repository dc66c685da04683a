import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { demoSite } from '../demo/site.js';

/** The demo pages on their own origin (another port), pointing at the API: a site owner's shop. */
export async function startDemoSite(publicKey: string, apiOrigin: string) {
  const app = new Koa();
  app.use(demoSite({ publicKey, apiOrigin }));
  const handle = app.callback(); // answers its own errors: the promise never rejects
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    // "localhost" while the API is "127.0.0.1": another origin, as on a real site.
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
