import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Deps } from '../deps.js';
import { authenticate } from './auth.js';
import { API_PREFIX, ENDPOINTS, type Access } from './endpoints.js';
import { STORING_ENDPOINTS, storageGuard } from './quota.js';
import { rateLimit } from './rate-limit.js';

export type Method = 'get' | 'post' | 'delete';
/** `access` narrows the endpoint's access for this method (e.g. a read any secret key may make, a write only a live one). */
export type Route = (method: Method, name: string, handler: Middleware, access?: Access) => void;

/**
 * Registers `/v1/<name>` with the checks every endpoint shares, in the order of API.md: the router
 * has matched (route), then the key and its permission, then the rate limit, then (for endpoints that
 * store what clients send) free disk space and the upload quota; the handler reads the body itself,
 * after all of these.
 */
export function routeFactory(router: Router, deps: Deps): Route {
  const guard = storageGuard(deps);
  const limiter = deps.rateLimiter;
  return (method, name, handler, narrowed) => {
    if (!ENDPOINTS[name]) throw new Error(`endpoint ${name} is missing from ENDPOINTS`);
    const access = narrowed ?? ENDPOINTS[name];
    router[method](
      `${API_PREFIX}/${name}`,
      authenticate(access, deps.keyRing, { limiter, perMinute: deps.config.rateLimit.keyFailuresPerMinute }),
      rateLimit(limiter, deps.config.rateLimit, name),
      ...(STORING_ENDPOINTS.includes(name) ? [guard(name)] : []),
      handler,
    );
  };
}
