import type { Context } from 'koa';
import type { Logger } from 'pino';
import { actorLabel } from './auth.js';

/** What one access line says. */
export interface AccessFields {
  reqId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  key: string | undefined;
}

/**
 * The line pino writes for `logger.info(fields, 'request')` with boot's logger (level info, no base
 * fields, the default time), made directly: pino's general path (its serializer checks and
 * stringifiers for each field) cost about as much as the rest of a cached read (see BENCHMARKS.md).
 * Strings as JSON.stringify writes them, which is what pino does for these (no lone surrogates: a
 * path arrives as Latin-1, ids and key prefixes are ASCII). A test holds it to pino's own output.
 */
export function accessLine(f: AccessFields, time: number): string {
  return `{"level":30,"time":${time},"reqId":${JSON.stringify(f.reqId)},"method":${JSON.stringify(f.method)},"path":${JSON.stringify(f.path)},"status":${f.status},"ms":${f.ms}${f.key === undefined ? '' : `,"key":${JSON.stringify(f.key)}`},"msg":"request"}\n`;
}

/**
 * Paths whose last part is a credential: a customer's magic link (/t/<token>, 30 days, reusable, it
 * reveals the customer's email) and the console's invitation and reset links (/console/invite/<token>,
 * /console/reset/<token>). Whoever reads the log must not be able to use them.
 */
const TOKEN_PATHS = ['/t/', '/console/invite/', '/console/reset/'];

/** The path as the access log shows it: a token in it replaced by `[token]`. */
function loggedPath(path: string): string {
  for (const prefix of TOKEN_PATHS)
    if (path.startsWith(prefix) && path.length > prefix.length) return `${prefix}[token]`;
  return path;
}

/**
 * One line per request, for a request that took `ms` (http/frame.ts calls it when each ends).
 * Deliberately no query string (it can hold an email address or a link's token), no token of a
 * path (loggedPath), no headers (the Authorization header
 * holds the key): the key appears only as its display prefix. With `lines` (the destination of boot's
 * own logger), the line is written there in that logger's format, while the logger is at level info
 * or below; otherwise it goes through the logger.
 */
export function accessLog(logger: Logger, lines?: (line: string) => void): (ctx: Context, ms: number) => void {
  return (ctx, ms) => {
    const fields: AccessFields = {
      reqId: ctx.state.requestId,
      method: ctx.method,
      path: loggedPath(ctx.path),
      status: ctx.status,
      ms: Math.round(ms * 10) / 10,
      key: actorLabel(ctx.state.actor),
    };
    if (!lines) logger.info(fields, 'request');
    else if (logger.isLevelEnabled('info')) lines(accessLine(fields, Date.now()));
  };
}
