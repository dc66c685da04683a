import type { CustomerLocale } from '../i18n/locales.js';
import type { Article } from '../model/index.js';
import { articleExcerpt, rankArticles } from './search.js';

/** An article as a reader of one language sees it: title, body and category translated where they are. */
export type Localized = Article & { lang: CustomerLocale };

/**
 * Per version of the configuration's `kb` array (a new array on every change) and language: the
 * articles as shown there, and those that have a translation there. Made once per version, so that
 * the search indexes (kept per array in search.ts) and the excerpts (per article object) are too.
 */
const shown = new WeakMap<Article[], Map<string, { all: Localized[]; translated: Localized[] }>>();

function forLanguage(kb: Article[], lang: CustomerLocale | undefined, base: CustomerLocale) {
  let byLang = shown.get(kb);
  if (!byLang) shown.set(kb, (byLang = new Map()));
  const key = lang ?? '';
  let entry = byLang.get(key);
  if (!entry) {
    const all = kb.map((a): Localized => {
      // The portal's own language is the article as written, whatever translation it may also carry.
      const tr = lang && lang !== base ? a.translations[lang] : undefined;
      return tr
        ? { ...a, title: tr.title, body: tr.body, category: tr.category ?? a.category, lang: lang! }
        : { ...a, lang: base };
    });
    entry = { all, translated: all.filter((a) => lang && a.lang === lang && lang !== base) };
    byLang.set(key, entry);
  }
  return entry;
}

/** Every article of `kb` in the reader's language `lang` (undefined: as written, in `base`). */
export function inLanguage(kb: Article[], lang: CustomerLocale | undefined, base: CustomerLocale): Localized[] {
  return forLanguage(kb, lang, base).all;
}

/**
 * Search in the reader's language first (issue 31): the articles translated into `lang` are searched
 * in that text, and rank before matches found in the text as written (the portal's language, which is
 * all an untranslated article has). Every result is shown in `lang` where it has a translation; one
 * found only through its text as written has no marked words in its translated title and excerpt.
 * Stems follow the reader's language throughout, as the words typed are theirs.
 */
export function searchInLanguage(
  kb: Article[],
  query: string,
  lang: CustomerLocale | undefined,
  base: CustomerLocale,
  visible: (a: Article) => boolean,
) {
  const { all, translated } = forLanguage(kb, lang, base);
  const first = translated.length ? rankArticles(translated, query, lang, visible) : [];
  const found = new Set(first.map((r) => r.article.id));
  const byId = new Map(all.map((a) => [a.id, a]));
  const rest = rankArticles(kb, query, lang, visible)
    .filter((r) => !found.has(r.article.id))
    .map((r) => {
      const article = byId.get(r.article.id)!;
      return article.lang === base
        ? { ...r, article }
        : { ...r, article, excerpt: articleExcerpt(article), highlight: { title: [], excerpt: [] } };
    });
  return [...first.map((r) => ({ ...r, article: r.article as Localized })), ...rest];
}
