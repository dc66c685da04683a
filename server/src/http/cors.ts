import type { Middleware } from 'koa';
import { endpointOf, ENDPOINTS } from './endpoints.js';

const ALLOW_HEADERS = 'Authorization, Content-Type, If-None-Match, Idempotency-Key';
// The widget reads ETag (polling) and Retry-After (rate limits) across origins.
const EXPOSE_HEADERS = 'ETag, Retry-After, X-Request-Id';

/**
 * CORS for the endpoints a public key may call, and for no others: a secret key has no business in a
 * browser on another origin. Never credentials: no cookies are used anywhere.
 */
export const cors: Middleware = async (ctx, next) => {
  const name = endpointOf(ctx.path);
  if (!name || ENDPOINTS[name] !== 'pk') return next();
  const origin = ctx.get('Origin');
  ctx.vary('Origin');
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
    }
    return;
  }
  if (origin) {
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  }
  await next();
};
