import type { Context } from 'koa';

/**
 * How much of a refused body is still read (and dropped) before the answer goes out. Enough for any
 * body a client might send by mistake (a JSON body with base64 files, a form over 1 MB); a client that
 * sends more gets the answer at this point, with `Connection: close`.
 */
export const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads and drops the rest of a body we refuse, then resolves: the answer then goes out on a
 * connection whose request is complete, and the client, done sending, reads it. Answering while the
 * client is still sending, on a connection that is then closed, makes the kernel reset it over the
 * unread bytes, and the client sees a broken pipe instead of the answer (about half the time with
 * `Connection: close` or a chunked body, in our measurements). Past `maxBytes` (declared or counted)
 * it stops waiting and closes after the answer instead.
 */
export function discardBody(ctx: Context, maxBytes = DISCARD_MAX_BYTES): Promise<void> {
  const req = ctx.req;
  if (req.complete || req.readableEnded || req.destroyed) return Promise.resolve();
  if (Number(ctx.get('Content-Length') || 0) > maxBytes) {
    closeAfterAnswer(ctx);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let dropped = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped <= maxBytes) return;
      done();
      closeAfterAnswer(ctx);
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/**
 * Stops waiting for a body we refused: the answer goes out at once with `Connection: close`, and Node
 * closes the socket as soon as it is flushed. Until then what the client still sends is read and
 * dropped, so the close is not a reset over unread bytes and the client reads the answer (the test
 * sends bodies of 6 and 50 MB with keep-alive, `Connection: close` and chunked, and always reads it).
 */
export function closeAfterAnswer(ctx: Context) {
  ctx.set('Connection', 'close');
  ctx.req.resume();
}
