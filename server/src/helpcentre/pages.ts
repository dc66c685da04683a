import { createHash } from 'node:crypto';
import { CUSTOMER_LOCALES, type CustomerLocale } from '../i18n/locales.js';
import type { ConfigData } from '../model/index.js';
import { escapeHtml } from './article-html.js';
import { HELP_STRINGS, LANGUAGE_NAMES } from './strings.js';

/** What every page of the help centre is drawn with. */
export interface PageFrame {
  lang: CustomerLocale;
  design: ConfigData['design'];
  /** The page's own absolute address (the canonical link). */
  canonical: string;
  /** The same page in each language it exists in, absolute, for hreflang links. */
  alternates: Partial<Record<CustomerLocale, string>>;
  title: string;
  description?: string;
  /** Search results and error pages are for people, not for a search engine's index. */
  noindex?: boolean;
  /** The search box's text. */
  query?: string;
  /** The shop's public key: the page loads the widget with it ("Write to us"). */
  widgetKey?: string | undefined;
}

const hex = (c: string) => {
  const full = c.length === 4 ? [...c.slice(1)].map((x) => x + x).join('') : c.slice(1);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
};
/** WCAG's relative luminance of a #rgb or #rrggbb colour. */
const luminance = (c: string) => {
  const [r, g, b] = hex(c).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
};
/** The shop's colour where it is readable on `background` (WCAG AA, 4.5:1), else `fallback`. */
const readable = (colour: string, background: string, fallback: string) =>
  contrast(colour, background) >= 4.5 ? colour : fallback;

/**
 * The page's style: the shop's primary colour on the header band and the buttons, with black or white
 * text on it, whichever reads better; links in the shop's colour only where it passes AA contrast.
 * Dark when the design says so, or follows the visitor's system with `auto`.
 */
function style(design: ConfigData['design']) {
  const primary = design.primary_color;
  const onPrimary = contrast(primary, '#000000') >= contrast(primary, '#ffffff') ? '#000000' : '#ffffff';
  const light = `--bg:#ffffff;--fg:#1f2937;--muted:#4b5563;--line:#d1d5db;--card:#f9fafb;--link:${readable(primary, '#ffffff', '#1d4ed8')};`;
  const dark = `--bg:#111827;--fg:#f3f4f6;--muted:#d1d5db;--line:#374151;--card:#1f2937;--link:${readable(primary, '#111827', '#93c5fd')};`;
  const themes =
    design.theme === 'dark'
      ? `:root{${dark}}`
      : design.theme === 'light'
        ? `:root{${light}}`
        : `:root{${light}}@media (prefers-color-scheme:dark){:root{${dark}}}`;
  return (
    `${themes}:root{--primary:${primary};--on-primary:${onPrimary}}` +
    '*{box-sizing:border-box}' +
    'body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
    'a{color:var(--link)}' +
    'header{background:var(--primary);color:var(--on-primary);padding:1rem}' +
    'header a{color:var(--on-primary)}' +
    '.wrap{max-width:48rem;margin:0 auto;padding:0 1rem}' +
    '.brand{display:flex;align-items:center;gap:.5rem;font-weight:600;font-size:1.25rem;text-decoration:none}' +
    '.brand img{max-height:2rem;width:auto}' +
    'form.search{display:flex;gap:.5rem;margin-top:1rem;flex-wrap:wrap}' +
    'form.search label{flex-basis:100%}' +
    'input[type=search]{flex:1;min-width:12rem;font:inherit;padding:.5rem;border:1px solid #6b7280;border-radius:.375rem;background:#fff;color:#111827}' +
    'button{font:inherit;padding:.5rem 1rem;border-radius:.375rem;border:2px solid var(--on-primary);background:var(--primary);color:var(--on-primary);cursor:pointer}' +
    'main{padding:1.5rem 0 3rem}' +
    'main button{border-color:var(--primary)}' +
    '.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin:1rem 0}' +
    '.muted{color:var(--muted)}' +
    'mark{background:#fde68a;color:#111827}' +
    'pre{overflow:auto;background:var(--card);border:1px solid var(--line);padding:.75rem;border-radius:.375rem}' +
    'ul.articles{padding-inline-start:1.25rem}' +
    'footer{border-top:1px solid var(--line);padding:1rem 0 2rem}' +
    'footer ul{list-style:none;display:flex;flex-wrap:wrap;gap:1rem;padding:0;margin:0}' +
    '.feedback form{display:flex;gap:.5rem}' +
    'a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--link);outline-offset:2px}'
  );
}

/** The whole page around `main`: header with the shop's name and the search box, language links, scripts. */
export function renderPage(frame: PageFrame, main: string): { html: string; styleHash: string } {
  const s = HELP_STRINGS[frame.lang];
  const { design } = frame;
  const css = style(design);
  const styleHash = createHash('sha256').update(css).digest('base64');
  const home = `/help/${frame.lang}/`;
  const alternates = Object.entries(frame.alternates)
    .map(([lang, href]) => `<link rel="alternate" hreflang="${lang}" href="${escapeHtml(href)}">`)
    .join('');
  const languages = CUSTOMER_LOCALES.map(
    (l) =>
      `<li><a href="/help/${l}/" lang="${l}"${l === frame.lang ? ' aria-current="page"' : ''}>${LANGUAGE_NAMES[l]}</a></li>`,
  ).join('');
  const logo = design.logo_url ? `<img src="${escapeHtml(design.logo_url)}" alt="">` : '';
  const widget = frame.widgetKey
    ? `<script src="/widget.js" data-key="${escapeHtml(frame.widgetKey)}" data-locale="${frame.lang}" async></script>` +
      '<script src="/help/help.js" async></script>'
    : '';
  const html =
    `<!doctype html>\n<html lang="${frame.lang}" dir="${frame.lang === 'ar' ? 'rtl' : 'ltr'}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${escapeHtml(frame.title)}</title>` +
    (frame.description ? `<meta name="description" content="${escapeHtml(frame.description)}">` : '') +
    (frame.noindex ? '<meta name="robots" content="noindex">' : '') +
    `<link rel="canonical" href="${escapeHtml(frame.canonical)}">${alternates}` +
    `<style>${css}</style></head><body>` +
    `<header><div class="wrap"><a class="brand" href="${home}">${logo}<span>${escapeHtml(design.title)} · ${s.helpCentre}</span></a>` +
    `<form class="search" role="search" method="get" action="${home}search">` +
    `<label for="q">${s.searchLabel}</label>` +
    `<input id="q" name="q" type="search" maxlength="200" value="${escapeHtml(frame.query ?? '')}">` +
    `<button type="submit">${s.searchButton}</button></form></div></header>` +
    `<main id="main"><div class="wrap">${main}</div></main>` +
    `<footer><div class="wrap"><nav aria-label="${s.languages}"><ul>${languages}</ul></nav></div></footer>` +
    `${widget}</body></html>\n`;
  return { html, styleHash };
}
