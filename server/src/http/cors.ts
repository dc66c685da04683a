import type { Middleware } from 'koa';
import { API_PREFIX, type RouteDef } from './route.js';

const ALLOW_HEADERS = 'Authorization, Content-Type, If-None-Match, Idempotency-Key, X-Ticketing-Identity';
// The widget reads ETag (polling) and Retry-After (rate limits) across origins.
const EXPOSE_HEADERS = 'ETag, Retry-After, X-Request-Id';

/**
 * CORS for the paths a customer may call (and the open ones, such as the OpenAPI document), and for
 * no others: a secret key has no business in a browser on another origin. Never credentials: no
 * cookie is ever allowed across origins.
 */
export function cors(routes: readonly RouteDef<never>[]): Middleware {
  const paths = new Set(
    routes.filter((r) => r.access === 'customer' || r.access === 'open').map((r) => `${API_PREFIX}${r.path}`),
  );
  // Not async: it only sets headers, and an async layer would add promises to every customer request.
  return (ctx, next) => {
    if (!paths.has(ctx.path)) return next();
    // Node's header object and setHeader where Koa's accessors would do the same: this runs on every
    // customer request. Nothing before this middleware sets Vary, but if it had, ctx.vary adds to it.
    const origin = ctx.req.headers.origin ?? '';
    if (ctx.res.hasHeader('Vary')) ctx.vary('Origin');
    else ctx.res.setHeader('Vary', 'Origin');
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
    return next();
  };
}
