import type { Context } from 'koa';

/**
 * How much of a refused body is still read (and dropped) before the answer goes out. Enough for any
 * body a client might send by mistake (a JSON body with base64 files, a form over 1 MB); a client that
 * sends more gets the answer at this point, with `Connection: close`.
 */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

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

// How long, and for how many bytes, a socket closed after a refusal keeps reading and dropping what
// the client still sends (nginx's and Apache's "lingering close"), before it is destroyed.
const LINGER_MS = 2000;
const LINGER_BYTES = 32 * 1024 * 1024;

/**
 * Stops waiting for a body we refused: the answer goes out at once with `Connection: close`, what the
 * client still sends is dropped, and the connection is closed with a lingering close. Node closes a
 * `Connection: close` socket with destroySoon(): a FIN after the answer, then, as soon as that is
 * flushed, destroy(); and destroying a socket while the client is still sending makes the kernel answer
 * with a reset, which can reach the client before it has read the answer (measured: 1 or 2 in 30 over-
 * size uploads, EPIPE). So this socket's destroySoon() sends the FIN and keeps reading until the client
 * closes its side too, for at most LINGER_MS or LINGER_BYTES, and only then destroys the socket.
 */
export function closeAfterAnswer(ctx: Context) {
  ctx.set('Connection', 'close');
  ctx.req.resume();
  const socket = ctx.req.socket;
  socket.destroySoon = () => {
    let dropped = 0;
    const stop = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    socket.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) stop();
    });
    socket.once('end', stop);
    socket.once('close', () => clearTimeout(timer));
    socket.end();
    socket.resume();
  };
}
