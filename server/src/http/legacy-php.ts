import type { Middleware } from 'koa';
import { ApiError } from './errors.js';
import { API_PREFIX, type RouteDef } from './route.js';

// A name may hold slashes (`/v1/admin/mail-test.php`): only names of the route table redirect.
const PHP_PATH = new RegExp(`^${API_PREFIX}/(.+)\\.php$`);

/**
 * Older integrations call /v1/create.php: 308 keeps the method and body. The Location is a path of
 * the route table, never built from Host. Preflights are answered as for the clean path, because
 * browsers do not follow redirects on preflights.
 */
export function legacyPhp(routes: readonly RouteDef<never>[]): Middleware {
  const paths = new Set(routes.map((r) => `${API_PREFIX}${r.path}`));
  return async (ctx, next) => {
    const match = PHP_PATH.exec(ctx.path);
    if (!match) return next();
    const clean = `${API_PREFIX}/${match[1]!}`;
    if (!paths.has(clean)) throw new ApiError(404, 'not_found', 'No such endpoint.');
    if (ctx.method === 'OPTIONS') {
      ctx.path = clean;
      return next();
    }
    ctx.status = 308;
    ctx.set('Location', clean + (ctx.querystring ? `?${ctx.querystring}` : ''));
    ctx.body = { redirect: clean };
  };
}
