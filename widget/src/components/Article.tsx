import { useBox } from '../state/box.js';
import { useEffect } from 'preact/hooks';
import type { Article as ArticleData } from '../api/client.js';
import { useStore } from '../state/context.js';
import { Markdown } from './markdown.js';

export function Article({ id }: { id: string }) {
  const s = useStore();
  const article = useBox<ArticleData | null>(null);
  const error = useBox('');
  useEffect(() => {
    s.loadArticle(id).then(
      (a) => (article.value = a),
      (err: unknown) => (error.value = s.describe(err)),
    );
  }, [id]);
  if (error.value) return <p class="err">{error.value}</p>;
  if (!article.value) return <p class="muted">{s.t.loading}</p>;
  return (
    <>
      <h3>{article.value.title}</h3>
      <Markdown source={article.value.body} />
    </>
  );
}
