import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import { adminRoutes } from './admin/routes.js';
import { automationRoutes } from './automation/routes.js';
import type { Deps } from './deps.js';
import { cors } from './http/cors.js';
import { apiReference } from './docs/reference.js';
import { HEALTH_PATHS, health } from './health/health.js';
import { helpCentre } from './helpcentre/help-centre.js';
import { robotsTxt } from './helpcentre/robots.js';
import { helpCentreRoutes } from './helpcentre/routes.js';
import { legacyPhp } from './http/legacy-php.js';
import { mountRoutes } from './http/mount.js';
import { API_PREFIX } from './http/route.js';
import { requestFrame } from './http/frame.js';
import { DirectApp } from './http/direct-app.js';
import { customerRoutes } from './identity/routes.js';
import { withIdentity } from './identity/verify.js';
import { bearerKey } from './keys/bearer.js';
import { kbRoutes } from './kb/routes.js';
import { liveRoutes } from './live/routes.js';
import { linkRoutes } from './links/routes.js';
import { mailRoutes } from './mail/routes.js';
import { linkPage } from './links/page.js';
import { moduleEnabled } from './model/index.js';
import { onboardingRoutes } from './onboarding/routes.js';
import { openApiRoutes } from './openapi/routes.js';
import { outboxRoutes } from './outbox/routes.js';
import { portalRoutes } from './portal/routes.js';
import { reportRoutes } from './reports/routes.js';
import { sessionCookie } from './sessions/session-cookie.js';
import { passkeyRoutes } from './sessions/passkeys.js';
import { profileRoutes } from './sessions/profile.js';
import { sessionRoutes } from './sessions/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { searchRoutes } from './search/routes.js';
import { teamRoutes } from './team/routes.js';
import { customerPanelRoutes } from './customers/routes.js';
import { serveAssets, widgetAssets } from './static/assets.js';
import { widgetLoader } from './static/widget-loader.js';
import { serveConsole } from './static/console.js';
import { fileRoutes } from './tickets/file-routes.js';
import { hoursRoutes } from './hours/routes.js';
import { ticketRoutes } from './tickets/routes.js';
import { toolRoutes } from './tickets/tools.js';
import { updatesRoutes } from './updates/routes.js';
import { webhookRoutes } from './webhooks/routes.js';

/** Every endpoint of the API, each declared once in its feature's routes.ts. */
const FEATURE_ROUTES = [
  ...ticketRoutes,
  ...toolRoutes,
  ...fileRoutes,
  ...liveRoutes,
  ...portalRoutes,
  ...customerRoutes,
  ...updatesRoutes,
  ...linkRoutes,
  ...kbRoutes,
  ...helpCentreRoutes,
  ...settingsRoutes,
  ...reportRoutes,
  ...teamRoutes,
  ...customerPanelRoutes,
  ...searchRoutes,
  ...adminRoutes,
  ...automationRoutes,
  ...hoursRoutes,
  ...mailRoutes,
  ...webhookRoutes,
  ...outboxRoutes,
  ...sessionRoutes,
  ...profileRoutes,
  ...onboardingRoutes,
  ...passkeyRoutes,
];
export const ROUTES = [...FEATURE_ROUTES, ...openApiRoutes(FEATURE_ROUTES)];

/**
 * The whole middleware order on one screen. The routes' own checks (credential, permission, module
 * switch, rate limit, storage, query and body) run in http/mount.ts, in the order of docs/api.md.
 * /health, /ready and /docs sit outside /v1 and before the API.
 */
export function createApp(
  deps: Deps,
  extra: {
    site?: Middleware;
    /** Aborted when the server begins to stop: /ready answers 503. */
    stopping?: AbortSignal;
    /** Aborted when the stopping server closes its port: answers end their connections. */
    closing?: AbortSignal;
    /** Where boot's own logger writes: the access log writes its lines there itself (http/access-log.ts). */
    logLines?: (line: string) => void;
  } = {},
): Koa {
  const limiter = deps.rateLimiter;
  const router = new Router();
  const { find } = mountRoutes(router, ROUTES, deps, {
    // A bearer key decides when one is sent; else the console's session cookie. A verified customer's
    // identity header (settings/identity) widens what a public key may read.
    credentials: [
      withIdentity(
        bearerKey(deps.keys, { limiter, perMinute: deps.config.rateLimit.keyFailuresPerMinute }),
        deps.configStore,
      ),
      sessionCookie(deps),
    ],
    moduleEnabled: (name) => moduleEnabled(deps.configStore.get().modules, name),
    rateLimit: deps.config.rateLimit,
    limiter,
    storing: (actor, ip, stores) => deps.quotas.guard(actor, ip, stores),
    unit: deps.unit,
  });
  // Every request: its id, the health probes (kept out of the access log; /ready logs when its
  // answer changes), the access line, errors in API.md's shape.
  const frame = requestFrame({
    logger: deps.logger,
    logLines: extra.logLines,
    probes: { paths: HEALTH_PATHS, answer: health(deps, { stopping: extra.stopping }) },
    closing: extra.closing,
  });
  const corsHeaders = cors(ROUTES);
  const noNext = () => Promise.resolve();

  // A call of a route's own path and method (nearly every API call) is answered outside Koa's chain
  // (http/direct-app.ts) by what the chain would run for it: the frame, CORS, the route's checks and
  // handler. The legacy .php redirects cannot match such a path, and a handler never calls on.
  //
  // X-Forwarded-For is read from the right: each proxy appends the address it saw, so only the last
  // `hops` entries come from proxies we run; anything left of them is whatever the client wrote.
  const app = new DirectApp(
    { proxy: deps.config.trustProxy, maxIpsCount: deps.config.trustProxyHops },
    (path, method) => {
      const handle = find(path, method);
      return handle && ((ctx) => frame(ctx, () => corsHeaders(ctx, () => handle(ctx, noNext))));
    },
  );
  // Errors are rendered and logged by the request frame (http/frame.ts); this logs the rare one it
  // cannot see: writing an answer (http/respond.ts), a stream body's, a socket's.
  app.on('error', (err: unknown) => {
    // A client that went away (a console tab closed on its event stream, a phone that lost its
    // network mid-answer) is no fault of the server: one debug line, not an error with a stack.
    if (clientWentAway(err)) deps.logger.debug({ code: (err as { code?: string }).code }, 'the client went away');
    else deps.logger.error({ err }, 'koa error');
  });

  // Everything else goes through Koa's chain, in the same frame.
  app.use(frame);
  // The widget, for any page on any site: the panel is fetched by import(), which uses CORS.
  const widget = widgetAssets();
  if (!widget.size) deps.logger.warn('the widget is not built (widget/dist is empty): run pnpm build');
  // The support console at /console/ (same origin as the API: its session cookie and CSRF token).
  const consoleApp = serveConsole();
  if (!consoleApp.built) deps.logger.warn('the console is not built (console/dist is empty): run pnpm build');
  const anySite = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };
  const loader = widget.get('/widget.js');
  const pages = compose([
    ...(loader ? [widgetLoader(loader, deps.configStore, anySite)] : []), // widget.js, with the design in it
    serveAssets(widget, anySite),
    consoleApp.middleware,
    apiReference(ROUTES, deps), // /docs: the browsable API reference
    linkPage(deps), // /t/<token>: the ticket a customer mail links to
    helpCentre(deps), // /help: the published knowledge base as pages, per language
    robotsTxt(deps), // /robots.txt: the help centre's sitemap; the API and the console are no pages
    ...(extra.site ? [extra.site] : []), // the demo pages, in demo mode only
  ]);
  // The rest of /v1: HEAD, OPTIONS (CORS preflights), a trailing slash or other case, the legacy .php
  // paths, 404 and 405, answered by the router. A page request never meets the router.
  const api = compose<Koa.ParameterizedContext>([
    legacyPhp(ROUTES),
    corsHeaders,
    router.routes() as Middleware,
    router.allowedMethods() as Middleware,
  ]);
  app.use((ctx, next) => (ctx.path.startsWith(`${API_PREFIX}/`) ? api(ctx, next) : pages(ctx, next)));
  return app;
}

const CLIENT_GONE = new Set([
  'ERR_STREAM_PREMATURE_CLOSE',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_DESTROYED',
]);
const clientWentAway = (err: unknown) => CLIENT_GONE.has((err as { code?: string } | null)?.code ?? '');
