import { Readable, pipeline } from 'node:stream';
import type { Context } from 'koa';

/** Statuses that never carry a body (the `statuses` package's `empty`, which Koa reads). */
const EMPTY = new Set([204, 205, 304]);

/** A body Koa pipes: a Node stream, or a web stream, Blob or Response made one. */
function streamOf(body: unknown): Readable | undefined {
  if (body instanceof Readable) return body;
  if (body instanceof Blob) return Readable.from(body.stream());
  if (body instanceof ReadableStream) return Readable.from(body);
  if (body instanceof Response) return Readable.from(body.body ?? '');
  return undefined;
}

/**
 * Writes a context's answer as Koa's own respond() does (koa/lib/application.js, not exported), for a
 * request answered outside Koa's chain (http/direct-app.ts): every kind of body Koa takes. No HEAD
 * branch: createApp never sends a HEAD request direct (no route's own method is HEAD, and the router
 * answers it from the GET route).
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
    // Koa's own flag for a body set to null on purpose (its body setter): an empty answer.
    if ((ctx.response as { _explicitNullBody?: boolean })._explicitNullBody) {
      ctx.response.remove('Content-Type');
      ctx.response.remove('Transfer-Encoding');
      ctx.length = 0;
      return void res.end();
    }
    // A status with no body says itself, as Koa answers it.
    const text = ctx.message || String(code);
    if (!res.headersSent) {
      ctx.type = 'text';
      ctx.length = Buffer.byteLength(text);
    }
    return void res.end(text);
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) return void res.end(body);
  const stream = streamOf(body);
  if (stream) {
    pipeline(stream, res, (err) => {
      if (err && ctx.app.listenerCount('error')) ctx.onerror(err);
    });
    return;
  }
  const json = JSON.stringify(body);
  if (!res.headersSent) ctx.length = Buffer.byteLength(json);
  res.end(json);
}
