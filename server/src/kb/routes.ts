import { z } from 'zod';
import type { Deps } from '../deps.js';
import { optional } from '../http/coerce.js';
import { notFound } from '../http/errors.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';
import { requireModule } from '../portal/modules.js';
import { articleExcerpt, rankArticles } from './search.js';

const KbQuery = z.object({ id: optional(z.string().max(100)), q: optional(z.string().max(200)) });

export function kbRoutes(route: Route, deps: Deps) {
  route('get', 'kb', async (ctx) => {
    const query = validate(KbQuery, ctx.query);
    const isPublic = ctx.state.auth.kind === 'public';
    requireModule(ctx, deps.configStore.get(), 'kb', 'The knowledge base');
    const visible = deps.configStore.get().kb.filter((a) => a.published || !isPublic);
    if (query.id !== undefined) {
      const article = visible.find((a) => a.id === query.id);
      if (!article) throw notFound('article');
      ctx.body = article;
      return;
    }
    const list =
      query.q !== undefined
        ? rankArticles(visible, query.q)
        : [...visible].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    ctx.body = {
      data: list.map((a) => ({
        id: a.id,
        title: a.title,
        excerpt: articleExcerpt(a),
        published: a.published,
        updated_at: a.updated_at,
      })),
    };
  });
}
