import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

// A random per-process prefix and a counter: unique across restarts and instances like a UUID, without
// drawing random bytes on every request (this runs on every request; see BENCHMARKS.md).
const PREFIX = randomBytes(9).toString('base64url');
let counter = 0;

/** A request id: 12 random characters from the start of this process, then a counter. */
export const newRequestId = () => `${PREFIX}-${(++counter).toString(36)}`;

/**
 * Gives a request its id, on ctx.state and in X-Request-Id (a well-formed id from a proxy is kept so
 * logs line up), and `X-Content-Type-Options: nosniff`: no answer may be sniffed into something else
 * by a browser (an error echoing input read as HTML). Every answer carries both (http/frame.ts).
 */
export function requestId(ctx: Context): void {
  // Node's own header object and setHeader, not ctx.get/ctx.set: the same headers without Koa's
  // accessors, on every request. Node joins repeated X-Request-Id headers into one string.
  const incoming = ctx.req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : newRequestId();
  ctx.state.requestId = id;
  ctx.res.setHeader('X-Request-Id', id);
  ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
}
