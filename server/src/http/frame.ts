import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { accessLog } from './access-log.js';
import { checkAnswered, renderError } from './errors.js';
import { requestId } from './request-id.js';
import { withArrival } from '../store/request-arrival.js';

export interface FrameOptions {
  logger: Logger;
  /** Where boot's own logger writes, for the access lines (http/access-log.ts). */
  logLines?: (line: string) => void;
  /** Requests answered here, before the access log: probes every few seconds would flood it. */
  probes: { paths: ReadonlySet<string>; answer(ctx: Context): Promise<void> };
  /** Aborted when a stopping server closes its port: answers end their connection from then on. */
  closing?: AbortSignal;
}

/**
 * What every request goes through, in one layer of Koa's chain: its id and nosniff
 * (http/request-id.ts), the health probes, the access line (http/access-log.ts), errors rendered in
 * API.md's shape (http/errors.ts), and Connection: close once a stopping server has closed its port. One layer rather than
 * one each: every layer of Koa's chain costs an async call and its promises on every request, and a
 * cached GET /ticket costs only about 120 µs of CPU in all.
 */
export function requestFrame(options: FrameOptions): Middleware {
  const log = accessLog(options.logger, options.logLines);
  return async (ctx, next) => {
    requestId(ctx);
    if (options.probes.paths.has(ctx.path)) return options.probes.answer(ctx);
    const started = performance.now();
    try {
      await withArrival(started, next);
      checkAnswered(ctx);
    } catch (err) {
      renderError(ctx, err, options.logger);
    } finally {
      // Once the port is closed, keep-alive connections end with the answer in flight: no wait for
      // their idle timeout before the process can exit, and a proxy learns it from the answer
      // instead of finding the connection closed under a request it sends.
      if (options.closing?.aborted) ctx.set('Connection', 'close');
      log(ctx, performance.now() - started);
    }
  };
}
