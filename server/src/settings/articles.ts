import type { z } from 'zod';
import { notFound } from '../http/errors.js';
import type { Article, ArticleInputSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { newId } from '../model/index.js';

/** Creates a knowledge-base article (no `id`) or replaces one (`id`; 404 when unknown). */
export async function upsertArticle(
  store: ConfigStore,
  input: Omit<z.output<typeof ArticleInputSchema>, 'category' | 'translations'> &
    Partial<Pick<z.output<typeof ArticleInputSchema>, 'category' | 'translations'>>,
  now: Date,
): Promise<{ article: Article; created: boolean }> {
  const existing = input.id === undefined ? undefined : store.get().kb.find((a) => a.id === input.id);
  if (input.id !== undefined && !existing) throw notFound('article');
  const at = now.toISOString();
  const article: Article = {
    id: existing?.id ?? newId('art'),
    title: input.title,
    body: input.body,
    published: input.published,
    category: input.category ?? null,
    translations: input.translations ?? {},
    created_at: existing?.created_at ?? at,
    updated_at: at,
  };
  await store.update((d) => {
    d.kb = existing ? d.kb.map((a) => (a.id === article.id ? article : a)) : [...d.kb, article];
  });
  return { article, created: !existing };
}

export async function removeArticle(store: ConfigStore, id: string) {
  if (!store.get().kb.some((a) => a.id === id)) throw notFound('article');
  await store.update((d) => {
    d.kb = d.kb.filter((a) => a.id !== id);
  });
}
