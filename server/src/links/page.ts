import type { Middleware } from 'koa';
import { ApiError } from '../http/errors.js';
import { negotiate } from '../i18n/locales.js';
import type { KeyStore } from '../store/key-store.js';
import { parseLink } from './magic-link.js';

/**
 * GET /t/<token>: the page a customer mail links to, on this server, for customers with no shop page
 * at hand: the widget, opened on the ticket the token names (the widget asks GET /v1/link, which
 * checks the token). The page holds nothing secret; the token stays out of Referer headers and caches.
 */
export function linkPage(deps: { keys: KeyStore }): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/t/') || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    let token: string;
    try {
      token = decodeURIComponent(ctx.path.slice(3));
    } catch {
      // A broken percent-encoding (`/t/%E0%A4%A`) is no link a mail of ours holds: not found, not a 500.
      throw new ApiError(404, 'not_found', 'This link is not valid.');
    }
    const link = parseLink(token);
    const key = link
      ? (await deps.keys.list()).find((k) => k.kind === 'public' && k.mode === link.mode && !k.revoked_at)?.key
      : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    ctx.type = 'text/html; charset=utf-8';
    if (!link || !key || !/^pk_(live|test)_[A-Za-z0-9]+$/.test(key)) {
      ctx.status = 404;
      ctx.body = '<!doctype html><meta charset="utf-8"><title>Not found</title><p>This link is not valid.</p>\n';
      return;
    }
    // The token and key are checked against strict patterns: nothing here needs escaping.
    const locale = negotiate(ctx.get('Accept-Language')) ?? 'en';
    ctx.body =
      `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width,initial-scale=1"><title>Support</title><link rel="icon" href="data:,"></head><body>` +
      `<script src="/widget.js" data-key="${key}" data-locale="${locale}" data-open="true" data-link="${token}" async></script>` +
      `</body></html>\n`;
  };
}
