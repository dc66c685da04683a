import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError, type Article as ArticleData } from '../api/client.js';
import { useStore } from '../state/context.js';
import { Markdown } from './markdown.js';

// "Was this helpful?" in the article's own file, strings and request included: the panel (20 KB
// gzip, its string tables counted with it) grows by nothing for a view few customers open.
const HELPFUL: Record<string, [ask: string, yes: string, no: string, thanks: string]> = {
  en: ['Was this helpful?', 'Yes', 'No', 'Thank you for your feedback.'],
  de: ['War das hilfreich?', 'Ja', 'Nein', 'Danke für Ihre Rückmeldung.'],
  fr: ['Cet article vous a-t-il aidé ?', 'Oui', 'Non', 'Merci pour votre avis.'],
  es: ['¿Le ha resultado útil?', 'Sí', 'No', 'Gracias por su opinión.'],
  ar: ['هل كان هذا مفيدًا؟', 'نعم', 'لا', 'شكرًا على ملاحظاتك.'],
};

/** The vote, stored per article (POST /kb/feedback) and counted in the console's reports. */
function Helpful({ id }: { id: string }) {
  const s = useStore();
  const [ask, yes, no, thanks] = HELPFUL[s.lang] ?? HELPFUL.en!;
  const done = useSignal(false);
  const error = useSignal('');
  const vote = async (helpful: boolean) => {
    error.value = '';
    try {
      let res: Response;
      try {
        res = await fetch(`${s.ctx.api}/kb/feedback`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${s.ctx.apiKey}`,
            'Content-Type': 'application/json',
            'Accept-Language': s.lang,
          },
          body: JSON.stringify({ article_id: id, helpful }),
        });
      } catch {
        throw new ApiError(0, 'network', 'network');
      }
      if (!res.ok) {
        const e = ((await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null)
          ?.error;
        throw new ApiError(res.status, e?.code ?? 'error', e?.message ?? res.statusText);
      }
      done.value = true;
    } catch (err) {
      error.value = s.describe(err);
    }
  };
  if (done.value) return <p role="status">{thanks}</p>;
  return (
    <div role="group" aria-labelledby="tk-helpful">
      <p id="tk-helpful">{ask}</p>
      <div class="row">
        <button type="button" class="btn ghost" onClick={() => void vote(true)}>
          {yes}
        </button>
        <button type="button" class="btn ghost" onClick={() => void vote(false)}>
          {no}
        </button>
      </div>
      {error.value && (
        <p class="err" role="alert">
          {error.value}
        </p>
      )}
    </div>
  );
}

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
      <Helpful id={id} />
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
