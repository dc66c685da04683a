import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { ConfigStore } from '../store/config-store.js';
import { sendAsset, type Asset } from './assets.js';

/** The name widget.js reads the portal's design by (declared in widget/src/loader.ts). */
const DESIGN_PARAMETER = '__ticketingDesign';

/**
 * Serves widget.js with the portal's design written in, as the argument of a function around the built
 * loader: the launcher is drawn from it at once, without a request to /widget-config first (one
 * round trip and its CORS preflight less before the launcher shows, no request at all for visitors who
 * never open the widget, and less of the page's main-thread time). Built again when the design
 * changes; browsers see a new design within widget.js's max-age, and revalidate by ETag.
 */
export function widgetLoader(built: Asset, config: ConfigStore, headers: Record<string, string>): Middleware {
  const code = built.body.toString('utf8');
  // A magic comment V8 reads (the compile hint) must stay on the first line.
  const head = code.startsWith('//#') ? code.indexOf('\n') + 1 : 0;
  let design = '';
  let asset: Asset & { etag: string } = { ...built, etag: '' };
  return async (ctx, next) => {
    if (ctx.path !== '/widget.js' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const current = JSON.stringify(config.get().design);
    if (current !== design) {
      design = current;
      const body = Buffer.from(
        `${code.slice(0, head)}(function(${DESIGN_PARAMETER}){${code.slice(head)}\n})(${current});\n`,
      );
      // Weak: the same tag for the br, gzip and plain forms of one body.
      const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      asset = { body, type: built.type, cache: built.cache, etag };
    }
    for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
    ctx.set('ETag', asset.etag);
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      ctx.set('Cache-Control', asset.cache);
      ctx.vary('Accept-Encoding'); // as the 200 says
      return;
    }
    sendAsset(ctx, asset);
  };
}
