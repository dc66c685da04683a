import { z } from 'zod';
import { formInt, optional } from '../http/coerce.js';
import { notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { CUSTOMER_LOCALES, negotiate } from '../i18n/locales.js';
import { KbArticleSchema, KbListSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { inLanguage, searchInLanguage } from './in-language.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { byPopularity, countView, type ArticleActivity } from './popular.js';
import { articleExcerpt } from './search.js';

const route = routeFor<{
  configStore: ConfigStore;
  kbFeedback: ArticleActivity;
  rateLimiter: RateLimiter;
  clock: () => Date;
  logger: { warn(obj: object, msg: string): void };
}>();

const KbQuery = z.object({
  id: optional(z.string().max(100)).describe('one article (art_…)'),
  q: optional(z.string().max(200)).describe('words to rank the articles by'),
  locale: optional(z.enum(CUSTOMER_LOCALES)).describe(
    'the reader’s language (default: from Accept-Language): articles come in their translation there',
  ),
  sort: optional(z.enum(['newest', 'popular'])).describe(
    'the list without q: newest first (default), or most popular first (views and “Was this helpful?” votes)',
  ),
  limit: optional(formInt({ min: 1, max: 100, digits: '^0*([1-9][0-9]?|100)$' })).describe(
    'the list: at most this many articles (1–100; default all)',
  ),
  offset: optional(formInt({ min: 0, max: 10_000, digits: '^0*[0-9]{1,4}$|^0*10000$' })).describe(
    'the list: skip this many first (default 0)',
  ),
});

const kb = route({
  method: 'get',
  path: '/kb',
  access: 'customer',
  module: 'kb',
  summary: 'The knowledge base: the overview (ranked with q) or one article (id)',
  description:
    'Customers see published articles only; support sees drafts too. Each article comes in the reader’s ' +
    'language (locale, else Accept-Language) where it has a translation there (title, body, category; `lang` ' +
    'says which), else as written. With q the search forgives typos, matches words being typed as prefixes ' +
    'and, for en and de, other forms of a word; articles matching in their translation into the reader’s ' +
    'language rank before those matching only as written.',
  query: KbQuery,
  requestHeaders: ['Accept-Language'],
  responses: {
    200: { description: 'With id: the article; without: the list', schema: z.xor([KbArticleSchema, KbListSchema]) },
  },
  errors: { 404: ['article_not_found'] },
  async handler({ actor, query, header, ctx }, deps) {
    const config = deps.configStore.get();
    const canSee = (a: { published: boolean }) => a.published || actor.kind !== 'customer';
    // The answer's language, and the stems, depend on the reader's language: the widget sends its own.
    ctx.vary('Accept-Language');
    const lang = query.locale ?? negotiate(header('Accept-Language'));
    const all = inLanguage(config.kb, lang, config.design.locale);
    if (query.id !== undefined) {
      const article = all.find((a) => a.id === query.id && canSee(a));
      if (!article) throw notFound('article');
      // A customer reading an article counts towards its popularity (once per address and article a while).
      if (actor.kind === 'customer')
        await countView(deps, ctx.ip, {
          at: deps.clock().toISOString(),
          article_id: article.id,
          view: true,
          mode: actor.mode,
          source: 'widget',
        });
      return { body: article };
    }
    const from = query.offset ?? 0;
    const page = <T>(xs: T[]) => xs.slice(from, query.limit === undefined ? undefined : from + query.limit);
    if (query.q !== undefined) {
      const ranked = searchInLanguage(config.kb, query.q, lang, config.design.locale, canSee);
      return {
        body: {
          data: page(ranked).map(({ article: a, excerpt, highlight }) => ({
            id: a.id,
            title: a.title,
            excerpt,
            category: a.category,
            lang: a.lang,
            published: a.published,
            updated_at: a.updated_at,
            highlight,
          })),
        },
      };
    }
    const visible = all.filter(canSee);
    const list =
      query.sort === 'popular'
        ? (await byPopularity(visible, deps.kbFeedback, actor.mode, deps.clock())).map((r) => r.article)
        : visible.sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return {
      body: {
        data: page(list).map((a) => ({
          id: a.id,
          title: a.title,
          excerpt: articleExcerpt(a),
          category: a.category,
          lang: a.lang,
          published: a.published,
          updated_at: a.updated_at,
        })),
      },
    };
  },
});

export const kbRoutes = [kb];
