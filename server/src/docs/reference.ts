import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Middleware } from 'koa';
import type { RouteDef } from '../http/route.js';
import { openApiDocument } from '../openapi/document.js';

// Swagger UI's own prebuilt distribution: no dependencies of its own, served from node_modules.
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const FILES: Record<string, { file: string; type: string }> = {
  '/docs/assets/swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  '/docs/assets/swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  '/docs/assets/favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Ticketing API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  </head>
  <body>
    <div id="reference"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/reference.js"></script>
  </body>
</html>
`;

// A file, not an inline script, so the page needs no 'unsafe-inline' for scripts. validatorUrl: null
// keeps Swagger UI from sending the document to its public validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#reference',
  validatorUrl: null,
  deepLinking: true,
  defaultModelsExpandDepth: 0,
});
`;

/**
 * The page's policy: scripts, styles and requests ("Try it out") only from and to this server; no
 * inline script or style, no frames, forms or plugins. Swagger UI draws some icons as data: images.
 * The browser test opens the page in Chromium and counts zero violations.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Served {
  body: Buffer;
  type: string;
  gzip?: Promise<Buffer>;
  br?: Promise<Buffer>;
}

/**
 * /docs: a browsable API reference rendered by Swagger UI from the OpenAPI document, all served by
 * this server (no CDN). /docs/openapi.json is the document of /v1/openapi.json (open too: it holds no
 * secret) with a relative server URL, so "Try it out" calls the origin the page came from.
 */
export function apiReference(routes: readonly RouteDef<never>[], deps: { version: string }): Middleware {
  const served = new Map<string, Promise<Served>>();
  const load = (path: string): Promise<Served> | undefined => {
    const known = served.get(path);
    if (known) return known;
    let next: Promise<Served> | undefined;
    if (path === '/docs' || path === '/docs/') next = Promise.resolve(text(PAGE, 'text/html; charset=utf-8'));
    else if (path === '/docs/reference.js') next = Promise.resolve(text(INIT, 'text/javascript; charset=utf-8'));
    else if (path === '/docs/openapi.json') {
      // A relative server: "Try it out" calls the origin the page came from, whatever the public URL.
      const doc = JSON.stringify(openApiDocument(routes, { version: deps.version, serverUrl: '/v1' }));
      next = Promise.resolve(text(doc, 'application/json; charset=utf-8'));
    } else if (FILES[path]) {
      const { file, type } = FILES[path];
      // Read on first use: most servers never open their reference.
      next = readFile(join(SWAGGER_UI, file)).then((body) => ({ body, type }));
    }
    if (next) served.set(path, next);
    return next;
  };

  return async (ctx, next) => {
    if (!ctx.path.startsWith('/docs') || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const found = load(ctx.path);
    if (!found) return next();
    const item = await found;
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', ctx.path.startsWith('/docs/assets/') ? 'public, max-age=3600' : 'no-cache');
    ctx.vary('Accept-Encoding');
    ctx.type = item.type;
    const accepts = ctx.get('Accept-Encoding');
    // Compressed off the event loop on first request (the bundle is 1.7 MB), then kept.
    if (/\bbr\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'br');
      ctx.body = await (item.br ??= brotliAsync(item.body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: item.body.length },
      }));
    } else if (/\bgzip\b/.test(accepts)) {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = await (item.gzip ??= gzipAsync(item.body, { level: 9 }));
    } else {
      ctx.body = item.body;
    }
  };
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const text = (body: string, type: string): Served => ({ body: Buffer.from(body), type });
