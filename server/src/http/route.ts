import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Deps } from '../deps.js';
import { authenticate } from './auth.js';
import { API_PREFIX, ENDPOINTS } from './endpoints.js';
import { STORING_ENDPOINTS, storageGuard } from './quota.js';
import { rateLimit } from './rate-limit.js';

export type Method = 'get' | 'post' | 'delete';
export type Route = (method: Method, name: string, handler: Middleware) => void;

/**
 * Registers `/v1/<name>` with the checks every endpoint shares, in the order of API.md: the router
 * has matched (route), then the key and its permission, then the rate limit, then (for endpoints that
 * store what clients send) free disk space and the upload quota; the handler reads the body itself,
 * after all of these.
 */
export function routeFactory(router: Router, deps: Deps): Route {
  const guard = storageGuard(deps);
  return (method, name, handler) => {
    const access = ENDPOINTS[name];
    if (!access) throw new Error(`endpoint ${name} is missing from ENDPOINTS`);
    router[method](
      `${API_PREFIX}/${name}`,
      authenticate(access, deps.keyRing),
      rateLimit(deps.rateLimiter, deps.config.rateLimit, name),
      ...(STORING_ENDPOINTS.includes(name) ? [guard(name)] : []),
      handler,
    );
  };
}
