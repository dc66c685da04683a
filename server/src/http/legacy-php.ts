import type { Middleware } from 'koa';
import { ApiError } from './errors.js';
import { API_PREFIX, ENDPOINTS } from './endpoints.js';

const PHP_PATH = new RegExp(`^${API_PREFIX}/([^/]+)\\.php$`);

/**
 * Older integrations call /v1/create.php: 308 keeps the method and body. The Location is a path built
 * from our own endpoint table, never from Host. Preflights are answered as for the clean path, because
 * browsers do not follow redirects on preflights.
 */
export const legacyPhp: Middleware = async (ctx, next) => {
  const match = PHP_PATH.exec(ctx.path);
  if (!match) return next();
  const name = match[1]!;
  if (!Object.hasOwn(ENDPOINTS, name)) throw new ApiError(404, 'not_found', 'No such endpoint.');
  const clean = `${API_PREFIX}/${name}`;
  if (ctx.method === 'OPTIONS') {
    ctx.path = clean;
    return next();
  }
  ctx.status = 308;
  ctx.set('Location', clean + (ctx.querystring ? `?${ctx.querystring}` : ''));
  ctx.body = { redirect: clean };
};
