import { z } from 'zod';
import { formInt, optional } from '../http/coerce.js';
import { notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { negotiate } from '../i18n/locales.js';
import { ArticleSchema, KbListSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { articleExcerpt, rankArticles } from './search.js';

const route = routeFor<{ configStore: ConfigStore }>();

const KbQuery = z.object({
  id: optional(z.string().max(100)).describe('one article (art_…)'),
  q: optional(z.string().max(200)).describe('words to rank the articles by'),
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
    'Customers see published articles only; support sees drafts too. With q the search forgives typos, ' +
    'matches words being typed as prefixes and, for en and de (Accept-Language), other forms of a word.',
  query: KbQuery,
  requestHeaders: ['Accept-Language'],
  responses: {
    200: { description: 'With id: the article; without: the list', schema: z.xor([ArticleSchema, KbListSchema]) },
  },
  errors: { 404: ['article_not_found'] },
  async handler({ actor, query, header, ctx }, deps) {
    const all = deps.configStore.get().kb;
    const canSee = (a: { published: boolean }) => a.published || actor.kind !== 'customer';
    if (query.id !== undefined) {
      const article = all.find((a) => a.id === query.id && canSee(a));
      if (!article) throw notFound('article');
      return { body: article };
    }
    const from = query.offset ?? 0;
    const page = <T>(xs: T[]) => xs.slice(from, query.limit === undefined ? undefined : from + query.limit);
    if (query.q !== undefined) {
      // The stems depend on the language the customer writes in: the widget sends its own.
      ctx.vary('Accept-Language');
      const ranked = rankArticles(all, query.q, negotiate(header('Accept-Language')), canSee);
      return {
        body: {
          data: page(ranked).map(({ article: a, excerpt, highlight }) => ({
            id: a.id,
            title: a.title,
            excerpt,
            published: a.published,
            updated_at: a.updated_at,
            highlight,
          })),
        },
      };
    }
    const list = all.filter(canSee).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return {
      body: {
        data: page(list).map((a) => ({
          id: a.id,
          title: a.title,
          excerpt: articleExcerpt(a),
          published: a.published,
          updated_at: a.updated_at,
        })),
      },
    };
  },
});

export const kbRoutes = [kb];
