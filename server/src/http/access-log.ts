import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { actorLabel } from './auth.js';

/**
 * One line per request. Deliberately no query string (it can hold an email address), no headers (the
 * Authorization header holds the key): the key appears only as its display prefix.
 */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          reqId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
          key: actorLabel(ctx.state.actor),
        },
        'request',
      );
    }
  };
}
