import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware } from 'koa';
import { loadAssets } from '../static/assets.js';

const DEMO_SITE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'demo-site');

/** The policy strict-csp.html is served with: nothing inline, nothing from anywhere but here and the API. */
function strictCsp(apiOrigin: string) {
  const other = apiOrigin ? ` ${apiOrigin}` : ''; // '' when the pages and the API share the origin
  return `default-src 'none'; script-src 'self'${other}; connect-src ${apiOrigin || "'self'"}; style-src 'self'${other}; img-src 'self' data:; base-uri 'none'; form-action 'none'`;
}

/**
 * The demo pages, with the demo's public key and the API origin filled in. Only the public key is ever
 * put into a page; the secret key stays in the terminal and in the demo CLI.
 */
export function demoSite(options: { publicKey: string; apiOrigin: string; dir?: string }): Middleware {
  // The pages and their files sit at the top of demo-site/ (tests/, screenshots/ are not served).
  const files = loadAssets(options.dir ?? DEMO_SITE_DIR, '/', () => 'no-cache', false);
  const html = new Map<string, string>();
  for (const [path, asset] of files) {
    if (path.endsWith('.html')) {
      html.set(
        path,
        asset.body
          .toString('utf8')
          .replaceAll('%PUBLIC_KEY%', options.publicKey)
          .replaceAll('%API_ORIGIN%', options.apiOrigin),
      );
    }
  }
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path === '/' ? '/index.html' : ctx.path;
    const page = html.get(path);
    const asset = files.get(path);
    if (!page && !asset) return next();
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (path === '/strict-csp.html') ctx.set('Content-Security-Policy', strictCsp(options.apiOrigin));
    ctx.type = asset!.type;
    ctx.body = page ?? asset!.body;
  };
}
