import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * No request for this long: nothing is coming in, so the port may close (a connection refused from
 * now on is one a proxy retries on another instance, POST included: nothing was sent) and an idle
 * keep-alive connection may be closed (no proxy is about to send on it).
 */
const QUIET_MS = 500;
/** A /ready request this shortly before the stop means a balancer probes it: it is told 503 before the port closes. */
const PROBER_WINDOW_MS = 60_000;
const TICK_MS = 50;

const isReadyProbe = (url: string | undefined) => url === '/ready' || Boolean(url?.startsWith('/ready?'));

/**
 * When requests arrive, for a stop that nobody sees (issue 33): the port stays open through the grace
 * while requests keep coming, so a balancer that learns from /ready's 503 stops sending first, and
 * closes early once it is quiet; an idle server stops at once.
 */
export class Arrivals {
  private lastRequest = -Infinity;
  private lastProbe = -Infinity;
  private stopBegan: number | undefined;
  /** A /ready asked after the stop began has been answered (503: it says "stopping"). */
  private proberTold = false;

  constructor(server: Server) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const at = performance.now();
      if (!isReadyProbe(req.url)) {
        this.lastRequest = at;
        return;
      }
      this.lastProbe = at;
      if (this.stopBegan !== undefined) res.once('finish', () => (this.proberTold = true));
    });
  }

  /**
   * Resolves when the port may close: `graceMs` after the stop began at the latest, earlier once no
   * request has come for QUIET_MS and a balancer probing /ready (if one was) has heard it answer 503.
   */
  async portMayClose(graceMs: number): Promise<'quiet' | 'grace over'> {
    const began = (this.stopBegan = performance.now());
    const prober = began - this.lastProbe < PROBER_WINDOW_MS;
    for (;;) {
      const now = performance.now();
      if (now - began >= graceMs) return 'grace over';
      if (now - this.lastRequest >= QUIET_MS && (!prober || this.proberTold)) return 'quiet';
      await new Promise((ok) => setTimeout(ok, TICK_MS));
    }
  }

  /** Nothing, probes included, has come in for QUIET_MS, or for `ms` when that is shorter. */
  quiet(ms: number) {
    return performance.now() - Math.max(this.lastRequest, this.lastProbe) >= Math.min(ms, QUIET_MS);
  }
}
