import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa, { type Context } from 'koa';
import { respond } from './respond.js';

/** What answers a request of this path and method by itself, or undefined: Koa's chain answers it. */
export type DirectLookup = (path: string, method: string) => ((ctx: Context) => Promise<void>) | undefined;

/**
 * Koa, with one shortcut: a request that `direct` claims (in createApp, a route's exact path and
 * method, which is nearly every API call) is answered without Koa's middleware chain and its
 * response handling. It gets Koa's own context all the same, goes through the same request frame,
 * CORS and route checks as in the chain (app.ts), and its answer is written as Koa writes one
 * (http/respond.ts). What it skips is what Koa does around that: composing the chain, the promise
 * chain of its request handler, and on-finished's listeners on the response and the socket. Those
 * only pass a socket's error before the answer is done (a client that reset its connection) to the
 * app's error listener, which logs it; for a direct request it is not logged, and nothing else
 * changes (a stream body still gets Koa's own listeners, from its body setter). Together that was
 * about a sixth of a cached GET /ticket's CPU (BENCHMARKS.md).
 *
 * callback() is Koa's documented way in (app.listen uses it too), so every server, the tests'
 * included, takes the shortcut.
 */
export class DirectApp extends Koa {
  constructor(
    options: { proxy: boolean; maxIpsCount: number },
    private readonly direct: DirectLookup,
  ) {
    super(options);
  }

  override callback(): ReturnType<Koa['callback']> {
    const chain = super.callback();
    return (req, res) => {
      // Koa's own context decides: its path is the one the chain would see. Anything else goes to the
      // chain, which makes its own context (the URL parsed once: parseurl keeps it on the request).
      // HTTP/1 only (boot.ts listens with node:http).
      const ctx = this.createContext(req as IncomingMessage, res as ServerResponse);
      let answer;
      try {
        answer = this.direct(ctx.path, ctx.method);
      } catch {
        // A URL Node cannot parse (an absolute-form request line with a broken escape): the chain
        // answers it (500), as it did every request before. Thrown here, it would end the process.
        return chain(req, res);
      }
      if (!answer) return chain(req, res);
      res.statusCode = 404; // where Koa starts every answer
      // The frame renders every error the route throws; this catches only one of its own, as Koa does.
      return answer(ctx)
        .then(() => respond(ctx))
        .catch((err: Error) => ctx.onerror(err));
    };
  }
}
