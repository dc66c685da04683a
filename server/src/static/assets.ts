import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context, Middleware } from 'koa';

export interface Asset {
  body: Buffer;
  /** Compressed on first request, then kept: brotli at quality 11 costs ~0.1 s, not worth paying at start. */
  gzip?: Buffer;
  br?: Buffer;
  type: string;
  cache: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

// src/static/ and dist/static/ are both three levels below the repository root. (path, not
// `new URL(…, import.meta.url)`, which bundlers rewrite as an asset reference.)
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const WIDGET_DIST = join(ROOT, 'widget', 'dist');
export const CONSOLE_DIST = join(ROOT, 'console', 'dist');

/** The files of `dir`, and of its subfolders when `deep`. */
function walk(dir: string, deep: boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (deep ? walk(join(dir, e.name), deep) : []) : e.isFile() ? [join(dir, e.name)] : [],
  );
}

/**
 * Files served from memory, compressed once (brotli and gzip, on first request), chosen per Accept-Encoding.
 * `cacheFor(path)` decides the Cache-Control of each file.
 */
export function loadAssets(
  dir: string,
  prefix: string,
  cacheFor: (path: string) => string,
  deep = true,
): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const file of walk(dir, deep)) {
    const rel = relative(dir, file).split(sep).join('/');
    const ext = rel.slice(rel.lastIndexOf('.'));
    const type = TYPES[ext];
    if (!type) continue;
    const body = readFileSync(file);
    const path = `${prefix}${rel}`;
    assets.set(path, { body, type, cache: cacheFor(path) });
  }
  return assets;
}

/**
 * The built widget and nothing else of widget/dist: widget.js (a short cache, it names the current
 * panel) and the hashed, immutable panel files under widget/.
 */
export function widgetAssets(dir = WIDGET_DIST): Map<string, Asset> {
  const assets = loadAssets(join(dir, 'widget'), '/widget/', () => 'public, max-age=31536000, immutable');
  const loader = loadAssets(dir, '/', () => 'public, max-age=300', false).get('/widget.js');
  if (loader) assets.set('/widget.js', loader);
  return assets;
}

export function serveAssets(assets: Map<string, Asset>, extraHeaders: Record<string, string> = {}): Middleware {
  return async (ctx, next) => {
    const asset = assets.get(ctx.path === '/' ? '/index.html' : ctx.path);
    if (!asset || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    for (const [k, v] of Object.entries(extraHeaders)) ctx.set(k, v);
    sendAsset(ctx, asset);
  };
}

/** Answers with `asset`, compressed as the client prefers, with its Cache-Control. */
export function sendAsset(ctx: Context, asset: Asset) {
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', asset.cache);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  // The client's preference, q-values included (`br;q=0` means no brotli).
  const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
  if (encoding === 'br') {
    ctx.set('Content-Encoding', 'br');
    ctx.body = asset.br ??= brotliCompressSync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  } else if (encoding === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = asset.gzip ??= gzipSync(asset.body, { level: 9 });
  } else {
    ctx.body = asset.body;
  }
}
