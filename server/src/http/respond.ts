import { Readable, pipeline } from 'node:stream';
import type { Context } from 'koa';

/** Statuses that never carry a body (the `statuses` package's `empty`, which Koa reads). */
const EMPTY = new Set([204, 205, 304]);

/**
 * Writes a context's answer as Koa's own respond() does (koa/lib/application.js, not exported), for a
 * request answered outside Koa's chain (http/direct-app.ts). The bodies this server's routes give:
 * a string or Buffer (a stored answer, a file), a Node stream (the live stream), an object (JSON),
 * none. No HEAD branch: a HEAD request never goes direct (it is no route's own method).
 */
export function respond(ctx: Context): void {
  if (ctx.respond === false) return; // the handler wrote the answer itself
  const { res } = ctx;
  if (!ctx.writable) return void res.end(); // the client is gone
  const code = ctx.status;
  if (EMPTY.has(code)) {
    ctx.body = null; // Koa's setter drops Content-Type and Content-Length
    return void res.end();
  }
  const { body } = ctx;
  if (body === null || body === undefined) {
    // A status with no body says itself, as Koa answers it.
    const text = ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    return void res.end(text);
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) return void res.end(body);
  if (body instanceof Readable) {
    pipeline(body, res, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  const json = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(json);
  res.end(json);
}
