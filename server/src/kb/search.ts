import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemmer as stemGerman } from '@orama/stemmers/german';
import MarkdownIt from 'markdown-it';
import MiniSearch, { type SearchResult } from 'minisearch';
import type { CustomerLocale } from '../i18n/locales.js';
import type { Article } from '../model/index.js';

/** Where the query's words are in a result's title and excerpt: [start, end) in UTF-16 code units. */
interface Highlight {
  title: [number, number][];
  excerpt: [number, number][];
}

interface Ranked {
  article: Article;
  score: number;
  excerpt: string;
  highlight: Highlight;
}

const WORD = /[\p{L}\p{N}]+/gu;
const tokenize = (text: string) => text.match(WORD) ?? [];

// Snowball stemmers (Orama's build) for the languages whose word forms customers type most; the other
// languages match by typo tolerance and prefix only.
const STEMMERS: Partial<Record<CustomerLocale, (word: string) => string>> = { en: stemEnglish, de: stemGerman };

/**
 * A word's index terms: the word itself (lower-case), so prefix search works on what the customer is
 * typing ("shipp" is a prefix of "shipping" but not of its stem "ship"), and its stem, so another form
 * of it matches ("Lieferungen" finds "Lieferung"). One-letter words are left out: as prefixes they
 * would match nearly everything.
 */
function termsOf(locale: CustomerLocale | undefined) {
  const stem = locale ? STEMMERS[locale] : undefined;
  return (word: string): string[] | null => {
    const w = word.toLowerCase();
    if (w.length < 2) return null;
    const s = stem?.(w);
    return s && s !== w && s.length >= 2 ? [w, s] : [w];
  };
}

// Articles in the configuration are replaced, never changed in place, and every configuration change
// (a save here, or another instance's through PostgreSQL's NOTIFY) makes a new `kb` array: an index
// built for one array stays right for as long as that array is current, and the next search after a
// change builds the next one. Kept per language, as the stems differ.
const indexes = new WeakMap<Article[], Map<string, MiniSearch<Article>>>();

function indexFor(articles: Article[], locale: CustomerLocale | undefined): MiniSearch<Article> {
  let byLocale = indexes.get(articles);
  if (!byLocale) indexes.set(articles, (byLocale = new Map()));
  const key = locale && STEMMERS[locale] ? locale : '';
  let index = byLocale.get(key);
  if (!index) {
    index = new MiniSearch<Article>({
      fields: ['title', 'body'],
      extractField: (a, field) => (field === 'body' ? plainText(a) : String(a[field as keyof Article])),
      tokenize,
      processTerm: termsOf(locale),
    });
    index.addAll(articles);
    byLocale.set(key, index);
  }
  return index;
}

/**
 * Ranks articles for a query, for deflection while a customer types (BM25 through MiniSearch): a word
 * in the title counts three times one in the body; a typo is forgiven (one edit in a word of 5 to 9
 * letters, two from 10), a word being typed matches as a prefix (from 3 letters), and with en or de
 * other forms of a word match by their stem. `visible` decides which articles may be answered.
 * Articles that match nothing are left out; equal scores go newest first.
 */
export function rankArticles(
  articles: Article[],
  query: string,
  locale: CustomerLocale | undefined,
  visible: (a: Article) => boolean,
): Ranked[] {
  const byId = new Map(articles.map((a) => [a.id, a]));
  const process = termsOf(locale);
  const results = indexFor(articles, locale).search(query, {
    boost: { title: 3 },
    prefix: (term) => term.length >= 3,
    fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    // At most two edits, and each word once: a 200-letter word or one word repeated costs no more to
    // look up than a short query.
    maxFuzzy: 2,
    tokenize: (text) => [...new Set(tokenize(text.toLowerCase()))],
    filter: (r) => visible(byId.get(r.id as string)!),
  });
  return results
    .map((r) => ({ r, a: byId.get(r.id as string)! }))
    .sort((x, y) => y.r.score - x.r.score || y.a.updated_at.localeCompare(x.a.updated_at))
    .map(({ r, a }) => ({ article: a, score: r.score, ...marks(a, r, process) }));
}

/** The title's matched words, and an excerpt that shows the body's first matched word, with theirs. */
function marks(a: Article, r: SearchResult, process: (w: string) => string[] | null) {
  const matched = new Set(r.terms);
  const hits = (text: string, firstOnly = false) => {
    const ranges: [number, number][] = [];
    for (const m of text.matchAll(WORD)) {
      if (!process(m[0])?.some((t) => matched.has(t))) continue;
      ranges.push([m.index, m.index + m[0].length]);
      if (firstOnly) break;
    }
    return ranges;
  };
  const plain = plainText(a);
  const first = hits(plain, true)[0];
  const shown = first && first[1] > EXCERPT_MAX - 1 ? clip(plain, first[0] - 40) : articleExcerpt(a);
  return { excerpt: shown, highlight: { title: hits(a.title), excerpt: hits(shown) } };
}

// Articles in the configuration are replaced, never changed in place (the store writes a copy), so an
// article object is one version of it: its plain text is worked out once, not on every request.
const plainTexts = new WeakMap<Article, string>();

function plainText(article: Article): string {
  let p = plainTexts.get(article);
  if (p === undefined) plainTexts.set(article, (p = toPlain(article.body)));
  return p;
}

const EXCERPT_MAX = 160;

/** The excerpt of one version of an article (see `excerpt`). */
export function articleExcerpt(article: Article): string {
  return clip(plainText(article), 0);
}

/** The first words of the body as plain text, without Markdown marks. Linear in the body's length. */
export function excerpt(body: string, max = EXCERPT_MAX): string {
  return clip(toPlain(body), 0, max);
}

/** Up to `max` characters of plain text from about `start` on, cut at words, with … where cut. */
function clip(plain: string, start: number, max = EXCERPT_MAX): string {
  let from = Math.max(0, start);
  if (from > 0) {
    const space = plain.indexOf(' ', from - 1);
    from = space < 0 ? from : space + 1;
  }
  const lead = from > 0 ? '…' : '';
  const room = max - lead.length;
  const rest = plain.slice(from);
  return rest.length <= room ? lead + rest : `${lead}${rest.slice(0, room - 1).replace(/\s+\S*$/, '')}…`;
}

// The articles' Markdown parsed as the widget and the console parse it (widget/src/components/markdown.tsx:
// CommonMark, `~~strikethrough~~`, raw HTML as text), so an excerpt and the search read the words the
// reader sees: `SPRING_SALE_2026` keeps its underscores and `2 * 3` its stars. Code blocks are left out.
// markdown-it works in time proportional to the body, whatever marks it leaves unclosed.
const markdown = new MarkdownIt('commonmark', { html: false }).enable('strikethrough');

type Token = ReturnType<typeof markdown.parse>[number];

function toPlain(body: string): string {
  const words: string[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.children) walk(t.children);
      else if (t.type === 'text' || t.type === 'code_inline') words.push(t.content);
      // Between blocks and lines a space, so words do not run together; emphasis and links add nothing.
      else if ((t.block && t.type !== 'fence' && t.type !== 'code_block') || t.type.endsWith('break')) words.push(' ');
    }
  };
  walk(markdown.parse(body, {}));
  return words.join('').replace(/\s+/g, ' ').trim();
}
