import { join } from 'node:path';
import type { Middleware } from 'koa';
import { CONSOLE_DIST, loadAssets, sendAsset } from './assets.js';

/** The console's pages allow nothing but this server: no inline script or style, no framing. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * The design preview's page (console/widget-preview.html): framed by the console only, it runs the real
 * widget.js of this server, whose panel may show the design's logo from any https address.
 */
export const PREVIEW_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; " +
  "frame-ancestors 'self'; base-uri 'none'; form-action 'self'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The support console (console/dist) at /console/: the hashed files under /console/assets/ are cached
 * forever; every other path under /console/ is a client-side route and answers index.html, which is
 * never cached (it names the current hashed files). Not built: falls through to the API's 404.
 */
export function serveConsole(dir = CONSOLE_DIST): { middleware: Middleware; built: boolean } {
  const assets = loadAssets(join(dir, 'assets'), '/console/assets/', () => IMMUTABLE);
  const pages = loadAssets(dir, '/console/', () => 'no-cache', false);
  const index = pages.get('/console/index.html');
  const preview = pages.get('/console/widget-preview.html');
  const middleware: Middleware = async (ctx, next) => {
    const inside = ctx.path === '/console' || ctx.path.startsWith('/console/');
    if (!inside || !index || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (ctx.path === '/console') {
      ctx.status = 308;
      ctx.redirect(`/console/${ctx.search}`);
      return;
    }
    if (ctx.path === '/console/widget-preview') {
      if (!preview) return next();
      ctx.set('Content-Security-Policy', PREVIEW_CSP);
      ctx.set('X-Frame-Options', 'SAMEORIGIN');
      ctx.set('Referrer-Policy', 'no-referrer');
      return sendAsset(ctx, preview);
    }
    const asset = ctx.path.startsWith('/console/assets/') ? assets.get(ctx.path) : index;
    // A missing hashed file is a 404, not the app: a script answered with HTML helps nobody.
    if (!asset) return next();
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    sendAsset(ctx, asset);
  };
  return { middleware, built: Boolean(index) };
}
