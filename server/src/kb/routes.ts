import { z } from 'zod';
import { optional } from '../http/coerce.js';
import { notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { ArticleSchema, KbListSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { articleExcerpt, rankArticles } from './search.js';

const route = routeFor<{ configStore: ConfigStore }>();

const KbQuery = z.object({
  id: optional(z.string().max(100)).describe('one article (art_…)'),
  q: optional(z.string().max(200)).describe('words to rank the articles by'),
});

const kb = route({
  method: 'get',
  path: '/kb',
  access: 'customer',
  module: 'kb',
  summary: 'The knowledge base: the overview (ranked with q) or one article (id)',
  description: 'Customers see published articles only; support sees drafts too.',
  query: KbQuery,
  responses: {
    200: { description: 'With id: the article; without: the list', schema: z.xor([ArticleSchema, KbListSchema]) },
  },
  errors: { 404: ['article_not_found'] },
  async handler({ actor, query }, deps) {
    const visible = deps.configStore.get().kb.filter((a) => a.published || actor.kind !== 'customer');
    if (query.id !== undefined) {
      const article = visible.find((a) => a.id === query.id);
      if (!article) throw notFound('article');
      return { body: article };
    }
    const list =
      query.q !== undefined
        ? rankArticles(visible, query.q)
        : [...visible].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return {
      body: {
        data: list.map((a) => ({
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
