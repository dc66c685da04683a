import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { Article as ArticleData } from '../api/client.js';
import { useStore } from '../state/context.js';
import { Markdown } from './markdown.js';

export function Article({ id }: { id: string }) {
  const s = useStore();
  const article = useSignal<ArticleData | null>(null);
  const error = useSignal('');
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
      {/* Not answered: the form, with what the customer searched for as its subject. */}
      <button
        type="button"
        class="btn ghost"
        onClick={() => {
          if (s.query.value.trim()) s.prefill.value = { ...s.prefill.value, subject: s.query.value.trim() };
          s.go({ name: 'new' });
        }}
      >
        {s.t.writeToUs}
      </button>
    </>
  );
}
