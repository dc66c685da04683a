import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ApiError, validationError } from '../http/errors.js';
import { CUSTOMER_LOCALES, negotiate, type CustomerLocale } from '../i18n/locales.js';
import { inLanguage, searchInLanguage, type Localized } from '../kb/in-language.js';
import { byPopularity, countView } from '../kb/popular.js';
import { articleExcerpt } from '../kb/search.js';
import { moduleEnabled, type Article, type ConfigData } from '../model/index.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { KeyStore } from '../store/key-store.js';
import { articleHtml, escapeHtml } from './article-html.js';
import { renderPage, type PageFrame } from './pages.js';
import type { HelpCentreDeps } from './routes.js';
import { HELP_STRINGS } from './strings.js';

/** A published article as a reader sees it in one language: its translation there, else as written. */
interface Shown {
  article: Article;
  /** The article as written, or translated: the fields search and the excerpt read. */
  text: Localized;
  /** The language its text is in (the portal's own for an untranslated article). */
  lang: CustomerLocale;
  slug: string;
}

const VOTES_PER_WINDOW = 30;
/** How many articles the home page's "Popular articles" lists (those read or voted up only). */
const POPULAR_SHOWN = 5;
const VOTE_WINDOW_MS = 10 * 60_000;
/** Pages change when an article does: a minute's cache, then a revalidation by ETag. */
const CACHE = 'public, max-age=60, must-revalidate';

/** A title as a path segment: lower-case letters and digits of any script, accents dropped, dashes between. */
function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
}

// Per version of the configuration's `kb` array (a new array on every configuration change, so a new
// design.locale too): the slugs, and the articles as shown in each language, made once, so that the search index (kb/search.ts, kept per
// array) and the excerpts (per article object) are built once per version, not per request.
const catalogues = new WeakMap<Article[], { slugs: Map<string, string>; byLang: Map<CustomerLocale, Shown[]> }>();

function catalogue(kb: Article[]) {
  let c = catalogues.get(kb);
  if (!c) {
    // Slugs come from the title as written; the oldest article keeps the bare slug when two collide,
    // the others take a piece of their id, so a link stays put when an article is added.
    const slugs = new Map<string, string>();
    const taken = new Set<string>(['search']); // the search page's address
    const published = kb.filter((a) => a.published).sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const a of published) {
      const bare = slugify(a.title) || a.id.toLowerCase();
      const slug = taken.has(bare) ? `${bare}-${a.id.slice(4, 12).toLowerCase()}` : bare;
      taken.add(slug);
      slugs.set(a.id, slug);
    }
    catalogues.set(kb, (c = { slugs, byLang: new Map() }));
  }
  return c;
}

function shownIn(kb: Article[], lang: CustomerLocale, base: CustomerLocale): Shown[] {
  const c = catalogue(kb);
  let list = c.byLang.get(lang);
  if (!list) {
    list = inLanguage(kb, lang, base)
      .map((text, i) => ({ article: kb[i]!, text, lang: text.lang, slug: c.slugs.get(text.id)! }))
      .filter((a) => a.article.published);
    c.byLang.set(lang, list);
  }
  return list;
}

/** The languages an article is written in: the portal's own and each of its translations. */
const languagesOf = (a: Article, base: CustomerLocale): CustomerLocale[] => [
  base,
  ...CUSTOMER_LOCALES.filter((l) => l !== base && a.translations[l]),
];

const isLocale = (s: string): s is CustomerLocale => (CUSTOMER_LOCALES as readonly string[]).includes(s);

/**
 * The public help centre: the published articles as pages a search engine reads, per language.
 *  - /help                      → 302 to /help/<the visitor's language>/
 *  - /help/<lang>/              categories and their articles
 *  - /help/<lang>/search?q=     search (a GET form)
 *  - /help/<lang>/<slug>        one article; POST (a form, helpful=yes|no) answers "Was this helpful?"
 *  - /help/sitemap.xml          every published article in each language it is written in
 *  - /help/help.js              the one script: "Write to us" opens the widget with the article named
 * Drafts never appear. Everything works without JavaScript; the widget's loader is added when the shop
 * has a live public key the page may use. Off with the kb module.
 */
export function helpCentre(deps: HelpCentreDeps & { keys: KeyStore; rateLimiter: RateLimiter }): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/help' && !ctx.path.startsWith('/help/')) return next();
    const config = deps.configStore.get();
    const post = ctx.method === 'POST';
    if (!post && ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD, POST');
      throw new ApiError(405, 'method_not_allowed', 'The help centre takes GET, HEAD and POST.');
    }
    if (!moduleEnabled(config.modules, 'kb')) throw new ApiError(404, 'not_found', 'There is no help centre here.');
    const base: CustomerLocale = config.design.locale;
    const origin = deps.publicUrl().replace(/\/+$/, '');
    const parts = ctx.path.split('/').slice(2); // '', or [lang, ...]

    // Only an article takes a POST (its vote); every other page is read only.
    if (post && !/^\/help\/[a-z]{2}\/(?!search$)[^/]+$/.test(ctx.path)) {
      ctx.set('Allow', 'GET, HEAD');
      throw new ApiError(405, 'method_not_allowed', 'Only an article takes a POST (its "Was this helpful?" form).');
    }
    if (ctx.path === '/help' || ctx.path === '/help/') {
      ctx.vary('Accept-Language');
      ctx.set('Cache-Control', 'no-cache');
      return ctx.redirect(`/help/${negotiate(ctx.get('Accept-Language')) ?? base}/`);
    }
    if (ctx.path === '/help/sitemap.xml') return sitemap(ctx, config, base, origin);
    if (ctx.path === '/help/help.js') return script(ctx);
    const lang = parts[0] ?? '';
    if (!isLocale(lang)) throw new ApiError(404, 'not_found', 'There is no such page.');
    if (parts.length === 1) return permanentRedirect(ctx, `/help/${lang}/`);
    const rest = parts.slice(1).join('/');
    let slug: string;
    try {
      slug = decodeURIComponent(rest);
    } catch {
      throw new ApiError(404, 'not_found', 'There is no such page.');
    }
    const shown = shownIn(config.kb, lang, base);
    const frame = async (f: Omit<PageFrame, 'lang' | 'design' | 'widgetKey'>): Promise<PageFrame> => ({
      ...f,
      lang,
      design: config.design,
      widgetKey: await widgetKey(deps.keys, origin),
    });
    const s = HELP_STRINGS[lang];
    const site = `${config.design.title} · ${s.helpCentre}`;

    if (slug === '' && !post) {
      const sections = new Map<string | null, Shown[]>();
      for (const a of [...shown].sort((x, y) => x.text.title.localeCompare(y.text.title, lang))) {
        const list = sections.get(a.text.category) ?? [];
        list.push(a);
        sections.set(a.text.category, list);
      }
      const names = [...sections.keys()].sort((x, y) => (x === null ? 1 : y === null ? -1 : x.localeCompare(y, lang)));
      const byId = new Map(shown.map((a) => [a.article.id, a]));
      const popular = (
        await byPopularity(
          shown.map((a) => a.article),
          deps.kbFeedback,
          'live',
          deps.clock(),
        )
      )
        .filter((r) => r.score > 0)
        .slice(0, POPULAR_SHOWN)
        .map((r) => byId.get(r.article.id)!);
      const body = names.length
        ? `<h1>${s.helpCentre}</h1>` +
          (popular.length
            ? `<section class="card" aria-labelledby="popular"><h2 id="popular">${s.popular}</h2>` +
              `<ul class="articles">${popular.map((a) => `<li>${articleLink(lang, a)}</li>`).join('')}</ul></section>`
            : '') +
          (names.length > 1
            ? `<nav aria-label="${s.backToAll}"><ul>${names
                .map((n, i) => `<li><a href="#section-${i + 1}">${escapeHtml(n ?? s.general)}</a></li>`)
                .join('')}</ul></nav>`
            : '') +
          names
            .map(
              (n, i) =>
                `<section class="card" aria-labelledby="section-${i + 1}"><h2 id="section-${i + 1}">${escapeHtml(n ?? s.general)}</h2>` +
                `<ul class="articles">${sections
                  .get(n)!
                  .map((a) => `<li>${articleLink(lang, a)}</li>`)
                  .join('')}</ul></section>`,
            )
            .join('')
        : `<h1>${s.helpCentre}</h1><p>${s.noArticles}</p>`;
      const alternates = Object.fromEntries(CUSTOMER_LOCALES.map((l) => [l, `${origin}/help/${l}/`]));
      return send(ctx, await frame({ title: site, canonical: `${origin}/help/${lang}/`, alternates }), body);
    }

    if (slug === 'search' && !post) {
      const q = typeof ctx.query.q === 'string' ? ctx.query.q.slice(0, 200) : '';
      const found = q.trim() ? searchInLanguage(config.kb, q, lang, base, (a) => a.published) : [];
      const byId = new Map(shown.map((a) => [a.article.id, a]));
      const body =
        `<h1>${escapeHtml(s.searchResults(q))}</h1>` +
        (found.length
          ? `<ul class="articles">${found
              .map(
                (r) =>
                  `<li>${articleLink(lang, byId.get(r.article.id)!, marked(r.article.title, r.highlight.title))}` +
                  `<p class="muted">${marked(r.excerpt, r.highlight.excerpt)}</p></li>`,
              )
              .join('')}</ul>`
          : `<p>${s.noResults}</p>`) +
        `<p><a href="/help/${lang}/">${s.backToAll}</a></p>`;
      return send(
        ctx,
        await frame({
          title: `${s.searchResults(q)} · ${site}`,
          canonical: `${origin}/help/${lang}/search`,
          alternates: {},
          noindex: true,
          query: q,
        }),
        body,
      );
    }

    const one = shown.find((a) => a.slug === slug) ?? shown.find((a) => a.article.id === slug);
    if (!one) {
      ctx.status = 404;
      const body = `<h1>${s.notFound}</h1><p>${s.notFoundText}</p><p><a href="/help/${lang}/">${s.backToAll}</a></p>`;
      return send(
        ctx,
        await frame({
          title: `${s.notFound} · ${site}`,
          canonical: `${origin}/help/${lang}/`,
          alternates: {},
          noindex: true,
        }),
        body,
        false,
      );
    }
    const path = `/help/${lang}/${encodeURIComponent(one.slug)}`;
    if (post) return vote(ctx, deps, one, path, s.tooMany);
    if (slug !== one.slug) return permanentRedirect(ctx, path); // the article's id
    if (ctx.method === 'GET' && ctx.query.voted !== '1')
      await countView(deps, ctx.ip, {
        at: deps.clock().toISOString(),
        article_id: one.article.id,
        view: true,
        mode: 'live',
        source: 'help',
      });

    const langs = languagesOf(one.article, base);
    // An article read in a language it has no translation in is the same text as in the portal's
    // language: that page is the canonical one.
    const canonical = `${origin}/help/${langs.includes(lang) ? lang : base}/${encodeURIComponent(one.slug)}`;
    const alternates = Object.fromEntries(langs.map((l) => [l, `${origin}/help/${l}/${encodeURIComponent(one.slug)}`]));
    const voted = ctx.query.voted === '1';
    const key = await widgetKey(deps.keys, origin);
    const address = config.mail.from_address;
    const subject = one.text.title;
    // Without JavaScript, "Write to us" is a mail to support when there is an address; with it (and a
    // public key), help.js opens the widget instead, with the article named in the message.
    const write =
      address || key
        ? `<section class="card" aria-labelledby="write"><h2 id="write">${s.stillNeedHelp}</h2><p><a` +
          (address
            ? ` href="mailto:${escapeHtml(encodeURIComponent(address).replace('%40', '@'))}?subject=${escapeHtml(encodeURIComponent(subject))}"`
            : ' href="#write" hidden') +
          ` data-write-to-us data-subject="${escapeHtml(subject)}" data-message="${escapeHtml(`${subject}\n${origin}${path}\n\n`)}">${s.writeToUs}</a></p></section>`
        : '';
    const category = one.text.category ?? s.general;
    const body =
      `<nav aria-label="${s.helpCentre}"><a href="/help/${lang}/">${s.helpCentre}</a> › ${escapeHtml(category)}</nav>` +
      `<article lang="${one.lang}" dir="${one.lang === 'ar' ? 'rtl' : 'ltr'}"><h1>${escapeHtml(one.text.title)}</h1>` +
      `<p class="muted">${s.updated} <time datetime="${one.article.updated_at}">${one.article.updated_at.slice(0, 10)}</time></p>` +
      articleHtml(one.text.body) +
      '</article>' +
      `<section class="card feedback" id="feedback" aria-labelledby="helpful"><h2 id="helpful">${s.helpful}</h2>` +
      (voted
        ? `<p role="status">${s.thanks}</p>`
        : `<form method="post" action="${path}"><button type="submit" name="helpful" value="yes">${s.yes}</button>` +
          `<button type="submit" name="helpful" value="no">${s.no}</button></form>`) +
      '</section>' +
      write;
    return send(
      ctx,
      {
        lang,
        design: config.design,
        widgetKey: key,
        title: `${one.text.title} · ${site}`,
        description: articleExcerpt(one.text),
        canonical,
        alternates,
        noindex: voted,
      },
      body,
    );
  };
}

function permanentRedirect(ctx: Context, to: string) {
  ctx.redirect(to);
  ctx.status = 301;
}

const articleLink = (lang: CustomerLocale, a: Shown, title = escapeHtml(a.text.title)) =>
  `<a href="/help/${lang}/${encodeURIComponent(a.slug)}"${a.lang !== lang ? ` hreflang="${a.lang}"` : ''}>${title}</a>`;

/** Text with the ranges search matched in <mark>, all of it escaped. */
function marked(text: string, ranges: [number, number][]): string {
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    if (from < at) continue;
    out += `${escapeHtml(text.slice(at, from))}<mark>${escapeHtml(text.slice(from, to))}</mark>`;
    at = to;
  }
  return out + escapeHtml(text.slice(at));
}

/**
 * The live public key the help centre's widget uses: the oldest active one that this server's own
 * pages may use (no origins, or this server's among them). None: the page has no widget.
 */
async function widgetKey(keys: KeyStore, origin: string): Promise<string | undefined> {
  const own = new URL(origin).origin;
  const key = (await keys.list()).find(
    (k) =>
      k.kind === 'public' &&
      k.mode === 'live' &&
      !k.revoked_at &&
      (!k.origins?.length || k.origins.includes(own)) &&
      /^pk_live_[A-Za-z0-9]+$/.test(k.key ?? ''),
  );
  return key?.key ?? undefined;
}

/** Writes a page with its headers: a strict CSP (the page's one style by its hash), a validator, caching. */
function send(ctx: Context, frame: PageFrame, main: string, cache = true) {
  const { html, styleHash } = renderPage(frame, main);
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${styleHash}'; img-src 'self' https: data: blob:; ` +
      "script-src 'self' https://challenges.cloudflare.com; frame-src https://challenges.cloudflare.com; " +
      "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.type = 'text/html; charset=utf-8';
  return validated(ctx, html, cache ? CACHE : 'no-store', cache);
}

/** The body with an ETag of its bytes; a matching If-None-Match is answered 304 without it. */
function validated(ctx: Context, text: string, cacheControl: string, conditional = true) {
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', etag);
  const match = ctx.get('If-None-Match');
  if (conditional && match && match.split(/\s*,\s*/).some((m) => m === etag || m === `W/${etag}`)) {
    ctx.status = 304;
    return;
  }
  ctx.body = text;
}

/** The form's vote: stored, then back to the article (post/redirect/get, so a reload does not vote again). */
async function vote(
  ctx: Context,
  deps: HelpCentreDeps & { rateLimiter: RateLimiter },
  one: Shown,
  path: string,
  tooMany: string,
) {
  const raw = await readSmallForm(ctx);
  const helpful = raw.get('helpful');
  if (helpful !== 'yes' && helpful !== 'no') throw validationError('helpful', 'must be yes or no');
  const wait = await deps.rateLimiter.hit(`helpcentre-vote:${ctx.ip}`, VOTES_PER_WINDOW, VOTE_WINDOW_MS);
  if (wait) {
    ctx.set('Retry-After', String(wait));
    throw new ApiError(429, 'rate_limited', tooMany);
  }
  await deps.kbFeedback.record({
    at: deps.clock().toISOString(),
    article_id: one.article.id,
    helpful: helpful === 'yes',
    mode: 'live',
    source: 'help',
  });
  ctx.status = 303;
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(`${path}?voted=1#feedback`);
}

const MAX_FORM = 1024;

/** A urlencoded form of at most 1 KB (the vote form is a few bytes): larger is refused unread. */
async function readSmallForm(ctx: Context): Promise<URLSearchParams> {
  const type = ctx.get('Content-Type').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new ApiError(415, 'unsupported_media_type', 'Send the form as application/x-www-form-urlencoded.');
  if (Number(ctx.get('Content-Length') || 0) > MAX_FORM)
    throw new ApiError(413, 'payload_too_large', 'The form is larger than 1 KB.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM) throw new ApiError(413, 'payload_too_large', 'The form is larger than 1 KB.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Every published article in each language it is written in, and each language's home. */
function sitemap(ctx: Context, config: ConfigData, base: CustomerLocale, origin: string) {
  const url = (loc: string, lastmod?: string) =>
    `<url><loc>${escapeHtml(loc)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
  const urls = CUSTOMER_LOCALES.map((l) => url(`${origin}/help/${l}/`));
  for (const a of shownIn(config.kb, base, base)) {
    for (const l of languagesOf(a.article, base))
      urls.push(url(`${origin}/help/${l}/${encodeURIComponent(a.slug)}`, a.article.updated_at));
  }
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    urls.join('\n') +
    '\n</urlset>\n';
  ctx.type = 'application/xml; charset=utf-8';
  return validated(ctx, xml, CACHE);
}

// "Write to us" with JavaScript: the widget opens with the article as the subject and its address in the
// message. The queue stub lets a click before widget.js has arrived wait for it.
const SCRIPT =
  '(function(){var w=window,a=document.querySelector("[data-write-to-us]");if(!a)return;' +
  'w.Ticketing=w.Ticketing||function(){(w.Ticketing.q=w.Ticketing.q||[]).push(arguments)};' +
  'a.hidden=false;a.addEventListener("click",function(e){e.preventDefault();' +
  'w.Ticketing("prefill",{subject:a.getAttribute("data-subject"),message:a.getAttribute("data-message")});' +
  'w.Ticketing("open")})})();\n';

function script(ctx: Context) {
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set('X-Content-Type-Options', 'nosniff');
  return validated(ctx, SCRIPT, 'public, max-age=300');
}
