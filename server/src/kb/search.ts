import type { Article } from '../model/index.js';

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Ranks articles for a query, for deflection while a customer types. For each query word:
 *  - a title word equal to it scores 4, a title word starting with it scores 2 (typing "refu" finds
 *    "refund" before the customer has finished the word);
 *  - body words score 1 (equal) and 0.5 (prefix), at most 3 per query word, so a long article that
 *    repeats a word does not beat a short one about it.
 * The sum is multiplied by the share of query words that matched at all, so an article matching
 * "refund shipping" on both words beats one matching only one of them many times; the whole query
 * found as a phrase in the title adds 5. Articles that match nothing are left out.
 */
export function rankArticles(articles: Article[], query: string): Article[] {
  const terms = [...new Set(words(query))].filter((t) => t.length >= 2);
  if (!terms.length) return [];
  const phrase = terms.join(' ');
  const scored = articles.map((a) => {
    const title = words(a.title);
    const body = words(a.body);
    let score = 0;
    let matched = 0;
    for (const term of terms) {
      let s = 0;
      for (const w of title) s += w === term ? 4 : w.startsWith(term) ? 2 : 0;
      let b = 0;
      for (const w of body) b += w === term ? 1 : w.startsWith(term) ? 0.5 : 0;
      s += Math.min(b, 3);
      if (s > 0) matched++;
      score += s;
    }
    if (title.join(' ').includes(phrase)) score += 5;
    return { a, score: score * (matched / terms.length) };
  });
  return scored
    .filter((x) => x.score > 0)
    .sort((x, y) => y.score - x.score || y.a.updated_at.localeCompare(x.a.updated_at))
    .map((x) => x.a);
}

// Articles in the configuration are replaced, never changed in place (the store writes a copy), so an
// article object is one version of it: its excerpt is worked out once, not on every list request.
const excerpts = new WeakMap<Article, string>();

/** The excerpt of one version of an article (see `excerpt`). */
export function articleExcerpt(article: Article): string {
  let e = excerpts.get(article);
  if (e === undefined) excerpts.set(article, (e = excerpt(article.body)));
  return e;
}

/** The first words of the body as plain text, without Markdown marks. Linear in the body's length. */
export function excerpt(body: string, max = 160): string {
  const plain = body
    .replace(/```[\s\S]*?```/g, ' ')
    // Links and images: their text. The label stops at a bracket and the address at a parenthesis, so
    // a failed try never scans past the next one: linear, where `[^)]*` took the square of `[](`×n.
    .replace(/!?\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '') // headings, quotes, list markers
    .replace(/(\*\*|__|\*|_|`|~~)/g, '') // emphasis and code marks
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length <= max ? plain : `${plain.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}
