import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const SAFE_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Every answer carries X-Request-Id; a well-formed id from a proxy is kept so logs line up. */
export const requestId: Middleware = async (ctx, next) => {
  const incoming = ctx.get('X-Request-Id');
  const id = SAFE_ID.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
};
