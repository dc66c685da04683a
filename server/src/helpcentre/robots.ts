import type { Middleware } from 'koa';
import { moduleEnabled } from '../model/index.js';
import type { HelpCentreDeps } from './routes.js';

/**
 * /robots.txt: search engines may read the help centre, and are pointed to its sitemap; the API (the
 * widget's calls included), the console, the widget's files and the customers' ticket links (/t/, a
 * token each) are no pages to index. With the kb module off there is no help centre, so no sitemap.
 */
export function robotsTxt(deps: Pick<HelpCentreDeps, 'configStore' | 'publicUrl'>): Middleware {
  return (ctx, next) => {
    if (ctx.path !== '/robots.txt' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const origin = deps.publicUrl().replace(/\/+$/, '');
    const help = moduleEnabled(deps.configStore.get().modules, 'kb');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body =
      'User-agent: *\n' +
      ['/v1/', '/console', '/widget', '/t/'].map((p) => `Disallow: ${p}\n`).join('') +
      (help ? `Allow: /help/\n\nSitemap: ${origin}/help/sitemap.xml\n` : '');
    return Promise.resolve();
  };
}
