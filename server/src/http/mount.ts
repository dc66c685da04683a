import type Router from '@koa/router';
import isFresh from 'fresh';
import type { Context, Middleware } from 'koa';
import type { RateLimitConfig } from '../config/config.js';
import type { ModuleName, RequestActor } from '../model/index.js';
import { checkAccess, identify, type Credential } from './auth.js';
import { readBody, type BodyOptions } from './body.js';
import { moduleDisabled } from './errors.js';
import { parseQuery } from './query.js';
import { checkRateLimit, type RateLimiter } from './rate-limit.js';
import { API_PREFIX, type RequestHeader, type RouteDef, type RouteRequest } from './route.js';
import { refuseNul, validate } from './validate.js';
import './state.js';

/** What the routes' checks need from the app; nothing else of it reaches http/. */
export interface MountOptions {
  /** Tried in order (http/auth.ts). */
  credentials: readonly Credential[];
  moduleEnabled: (name: ModuleName) => boolean;
  rateLimit: RateLimitConfig;
  limiter: RateLimiter;
  /** For routes that store what they are sent (RouteDef.stores): free disk space and quotas (files/quota.ts). */
  storing(actor: RequestActor, ip: string, stores: 'text' | 'files'): Promise<void>;
  /**
   * Runs a write route's handler as one unit of work (store/unit-of-work.ts): with PostgreSQL, one
   * transaction, committed before the answer is written.
   */
  unit: <T>(work: () => Promise<T>) => Promise<T>;
}

const bodyOptions = (route: RouteDef<never>): BodyOptions => {
  const encodings = route.body?.encodings ?? [];
  return {
    jsonOnly: encodings.length === 1 && encodings[0] === 'json',
    multipartOnly: encodings.length === 1 && encodings[0] === 'multipart',
    ...(route.body?.files ? { files: { fields: [...route.body.files.fields], max: route.body.files.max } } : {}),
  };
};

/** Whether two actors are the same caller: the same key, or the same agent's same session. */
const sameActor = (a: RequestActor, b: RequestActor) =>
  a.kind === b.kind &&
  a.mode === b.mode &&
  (a.kind === 'agent' && b.kind === 'agent'
    ? a.agent.id === b.agent.id && a.session === b.session
    : a.kind !== 'agent' && b.kind !== 'agent' && a.key.id === b.key.id);

/** A media type with a charset, which Koa's ctx.type would set unchanged. */
const FULL_TYPE = /^[a-z]+\/[a-z0-9.+-]+; charset=[a-z0-9-]+$/;

/** The status a handler's answer has when it names none: the route's first (lowest) declared one. */
const defaultStatus = (route: RouteDef<never>) => Number(Object.keys(route.responses)[0] ?? 200);

/**
 * Registers every route at /v1/<path> with the checks they share, in the order of docs/api.md: the
 * router has matched (404/405), then the credential (401, and 429 after too many failed lookups), the
 * permission (403), the module switch (403), the rate limit (429), for routes that store what they are
 * sent free disk space and the upload quota (503, 429), the query and the body (400, 413, 415), and
 * only then the handler (lookups 404, state 409). Returns `find`: a route's handler by its exact path
 * and method, for the app to call it without the router (http/direct-app.ts).
 */
export function mountRoutes<D>(
  router: Router,
  routes: readonly RouteDef<D>[],
  deps: D,
  options: MountOptions,
): { find(path: string, method: string): Middleware | undefined } {
  const exact = new Map<string, Map<string, Middleware>>();
  for (const route of routes) {
    const opts = bodyOptions(route as RouteDef<never>);
    const status = defaultStatus(route as RouteDef<never>);
    const path = `${API_PREFIX}${route.path}`;
    const handle = async (ctx: Context) => {
      let actor: RequestActor | null = null;
      if (route.access !== 'open') {
        actor = await identify(ctx, options.credentials);
        ctx.state.actor = actor;
        checkAccess(ctx, actor, route.access);
        if (route.module && actor.kind === 'customer' && !options.moduleEnabled(route.module)) {
          throw moduleDisabled(route.module);
        }
        if (options.rateLimit.enabled)
          await checkRateLimit(options.limiter, options.rateLimit, actor, ctx.ip, route.rateLimit);
        if (route.stores) await options.storing(actor, ctx.ip, route.stores);
      }
      // The query as ctx.query would give it, parsed faster (http/query.ts).
      // Every string a request sends passes here: a NUL in any of them is 400 (http/validate.ts).
      const rawQuery = route.query ? parseQuery(ctx.querystring) : undefined;
      if (rawQuery) refuseNul(rawQuery);
      const query = route.query ? validate(route.query, rawQuery) : undefined;
      const { fields, files } = route.body ? await readBody(ctx, opts) : { fields: {}, files: [] };
      if (route.body) refuseNul(fields);
      const body = route.body ? validate(route.body.schema, fields) : undefined;
      const req: RouteRequest<'customer', unknown, unknown> = {
        actor: actor!,
        query,
        body,
        fields,
        files,
        ip: ctx.ip,
        header: (name: RequestHeader) => ctx.get(name) || undefined,
        ctx,
        credentialHolds: async () => {
          if (!actor) return true;
          ctx.state.rechecking = true;
          try {
            const again = await identify(ctx, options.credentials);
            checkAccess(ctx, again, route.access);
            return sameActor(again, actor);
          } catch {
            return false; // 401, 403, or the store could not say: the credential no longer holds
          } finally {
            ctx.state.rechecking = false;
          }
        },
      };
      // Reads need no unit; a write's ticket, deliveries and audit entry are stored together.
      const reply =
        route.method === 'get' ? await route.handler(req, deps) : await options.unit(() => route.handler(req, deps));
      // Node's setHeader, which ctx.set calls for a string value while nothing is sent yet (as here).
      if (reply.headers) for (const name in reply.headers) ctx.res.setHeader(name, reply.headers[name]!);
      ctx.status = reply.status ?? status;
      if (reply.etag !== undefined) {
        ctx.res.setHeader('ETag', reply.etag);
        // If-None-Match (lists, weak tags, *) compared by Koa's own `fresh` package, given that header
        // alone: ctx.fresh also honours a request's Cache-Control: no-cache, a directive for caches
        // that fetch() adds to every conditional request, so a browser would never get its 304.
        const ifNoneMatch = ctx.req.headers['if-none-match'];
        if (ifNoneMatch && isFresh({ 'if-none-match': ifNoneMatch }, { etag: reply.etag })) {
          ctx.status = 304;
          return;
        }
      }
      if (reply.raw) {
        // A full type with its charset is what ctx.type would set as it is; anything else goes through Koa.
        if (FULL_TYPE.test(reply.raw.type)) ctx.res.setHeader('Content-Type', reply.raw.type);
        else ctx.type = reply.raw.type;
        const { data } = reply.raw;
        ctx.body =
          typeof data === 'string' || Buffer.isBuffer(data)
            ? data
            : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      } else if (reply.body !== undefined) {
        ctx.body = reply.body;
      }
    };
    router[route.method](path, handle);
    const methods = exact.get(path) ?? new Map<string, Middleware>();
    methods.set(route.method.toUpperCase(), handle);
    exact.set(path, methods);
  }
  // Every route's path is exact (no parameters), so a request for one of them with its method is a
  // Map lookup away from its handler: @koa/router would test every route's expression and compose a
  // chain per request (see BENCHMARKS.md). Everything else (HEAD, OPTIONS, a trailing slash, other
  // case, 404, 405) goes to the router, which answers it.
  return { find: (path, method) => exact.get(path)?.get(method) };
}
