import type { Article, KbListItem } from '@ticketing/server/model';
import { Markdown } from '@ticketing/widget/text';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { Modal } from '../../components/Modal.js';
import { relative } from '../../components/format.js';
import { fill } from '../../i18n/t.js';
import { useStore, useStrings } from '../../state/context.js';
import { TextArea, TextInput, Toggle } from '../kit/controls.js';
import '../kit/entries.css';
import './kb.css';
import { kbStrings } from './strings.js';

/** The languages an article may be translated into (the widget's; the portal's own is the text as written). */
const LANGS = ['en', 'de', 'fr', 'es', 'ar'] as const;
type Lang = (typeof LANGS)[number];
type Translation = { title: string; body: string; category: string };
type Draft = Pick<Article, 'title' | 'body' | 'published'> & {
  id?: string;
  category: string;
  translations: Partial<Record<Lang, Translation>>;
};
const EMPTY: Draft = { title: '', body: '', published: false, category: '', translations: {} };
const blank = (t: Translation | undefined) => !t || (!t.title.trim() && !t.body.trim() && !t.category.trim());
/** What is saved: an emptied category is none, an untouched language no translation. */
const payload = (d: Draft) => ({
  ...(d.id ? { id: d.id } : {}),
  title: d.title,
  body: d.body,
  published: d.published,
  category: d.category.trim() || null,
  translations: Object.fromEntries(
    Object.entries(d.translations)
      .filter(([, t]) => !blank(t))
      .map(([l, t]) => [l, { title: t.title, body: t.body, ...(t.category.trim() ? { category: t.category } : {}) }]),
  ),
});
const same = (a: Draft, b: Draft) => JSON.stringify(payload(a)) === JSON.stringify(payload(b));
const toDraft = (a: Article): Draft => ({
  id: a.id,
  title: a.title,
  body: a.body,
  published: a.published,
  category: a.category ?? '',
  translations: Object.fromEntries(
    Object.entries(a.translations).map(([l, t]) => [l, { title: t.title, body: t.body, category: t.category ?? '' }]),
  ),
});

/** Marks the matched words of a search hit (offsets from the server, in UTF-16 units). */
function marked(text: string, ranges: [number, number][] = []) {
  const out: ComponentChildren[] = [];
  let at = 0;
  for (const [from, to] of ranges) {
    out.push(text.slice(at, from), <mark>{text.slice(from, to)}</mark>);
    at = to;
  }
  out.push(text.slice(at));
  return out;
}

/** `/admin r=kb`: articles with a Markdown editor and its preview (the widget's renderer), and the widget's search. */
export function KbSettings() {
  const s = useStore();
  const t = useStrings(kbStrings);
  const [articles, setArticles] = useState<Article[] | null>(null);
  const [open, setOpen] = useState<Draft>(EMPTY);
  const [saved, setSaved] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'' | 'saving' | 'saved'>('');
  const [deleting, setDeleting] = useState<Article | null>(null);
  // The tab open in the editor: '' is the article as written, else one of its translations.
  const [tab, setTab] = useState<'' | Lang>('');
  const [base, setBase] = useState<string>('en');
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<KbListItem[] | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);
  const dirty = !same(open, saved);

  useEffect(() => {
    s.api.adminGet<Article[]>('kb').then(setArticles, (e: unknown) => setError(s.describe(e)));
    // The portal's own language is the text as written: no tab of its own.
    s.api.adminGet<{ locale: string }>('design').then(
      (d) => setBase(d.locale),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [dirty]);

  // The widget's own search endpoint; an agent also sees drafts there, so only published hits are kept
  // (the ranking does not depend on which articles are visible, so the order is the widget's).
  useEffect(() => {
    const words = q.trim();
    if (!words) return void setHits(null);
    let live = true;
    const search = async () => {
      const res = await fetch(`${s.api.base}/kb?q=${encodeURIComponent(words)}`, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json', 'Accept-Language': s.locale.value },
      }).catch(() => null);
      if (!live) return;
      const body = await res?.json().catch(() => null);
      if (res?.ok) {
        setSearchError(null);
        setHits((body.data as KbListItem[]).filter((a) => a.published));
      } else {
        setHits(null);
        setSearchError(
          body?.error?.code === 'module_disabled' ? t.kbOff : (body?.error?.message ?? s.t.value.networkError),
        );
      }
    };
    const timer = setTimeout(() => void search(), 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q, articles]);

  function choose(next: Draft) {
    if (dirty && !confirm(t.leave)) return;
    setOpen(next);
    setSaved(next);
    setErrors({});
    setError(null);
    setState('');
    setTab('');
  }

  async function save(draft: Draft) {
    setErrors({});
    setError(null);
    setState('saving');
    try {
      const { article } = await s.api.adminPost<{ article: Article }>('kb', payload(draft));
      setArticles((list) =>
        list?.some((a) => a.id === article.id)
          ? list.map((a) => (a.id === article.id ? article : a))
          : [article, ...(list ?? [])],
      );
      const stored = toDraft(article);
      // A quick publish from the list leaves another open article's edits alone.
      if (!draft.id || draft.id === open.id) {
        setOpen(stored);
        setSaved(stored);
      }
      setState('saved');
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.details.length) {
        setErrors(Object.fromEntries(e.details.map((d) => [d.param, d.message])));
        // The first refused field's tab is opened, so its message shows beside it.
        const lang = /^translations\.([a-z]{2})\./.exec(e.details[0]!.param)?.[1] as Lang | undefined;
        setTab(lang ?? '');
      } else setError(s.describe(e));
      setState('');
      return false;
    }
  }

  async function remove(a: Article) {
    try {
      await s.api.adminDelete('kb', a.id);
      setArticles((list) => list?.filter((x) => x.id !== a.id) ?? null);
      if (open.id === a.id) {
        setOpen(EMPTY);
        setSaved(EMPTY);
      }
      s.toasts.show({ text: fill(t.deleted, { title: a.title }) });
    } catch (e) {
      setError(s.describe(e));
    } finally {
      setDeleting(null);
    }
  }

  const status = state === 'saving' ? t.saving : dirty ? t.unsaved : state === 'saved' ? t.saved : '';
  const sorted = [...(articles ?? [])].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  return (
    <section class="settings-page" aria-labelledby="settings-title">
      <h1 id="settings-title">{t.title}</h1>
      <p class="intro">{t.intro}</p>
      {error && (
        <p class="err banner" role="alert">
          {error}
        </p>
      )}
      <div class="kb-layout">
        <nav class="kb-list" aria-label={t.articles}>
          <button type="button" class="btn small" onClick={() => choose(EMPTY)}>
            {t.newArticle}
          </button>
          {articles && !articles.length && <p class="hint">{t.none}</p>}
          <ul>
            {sorted.map((a) => (
              <li class={a.id === open.id ? 'current' : undefined}>
                <button
                  type="button"
                  class="kb-pick"
                  aria-current={a.id === open.id ? 'true' : undefined}
                  onClick={() => choose(toDraft(a))}
                >
                  {a.title || t.untitled}
                </button>
                <div class="kb-meta">
                  <span class={a.published ? 'badge ok' : 'badge'}>{a.published ? t.published : t.draft}</span>
                  <span class="muted">{fill(t.updated, { when: relative(a.updated_at, s.locale.value) })}</span>
                  <button
                    type="button"
                    class="btn small ghost"
                    aria-label={`${a.published ? t.unpublish : t.publish}: ${a.title}`}
                    onClick={() => void save({ ...toDraft(a), published: !a.published })}
                  >
                    {a.published ? t.unpublish : t.publish}
                  </button>
                  <button
                    type="button"
                    class="btn small ghost danger"
                    aria-label={`${t.delete}: ${a.title}`}
                    onClick={() => setDeleting(a)}
                  >
                    {t.delete}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </nav>

        <form
          class="settings-form stack kb-editor"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save(open).then(
              (ok) =>
                !ok &&
                requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()),
            );
          }}
        >
          <TextInput
            id="kb-category"
            label={t.category}
            hint={t.categoryHint}
            value={open.category}
            error={errors.category}
            onChange={(category) => setOpen({ ...open, category })}
          />
          <div role="tablist" aria-label={t.languages} class="kb-tabs">
            {(['', ...LANGS.filter((l) => l !== base)] as const).map((l) => (
              <button
                type="button"
                role="tab"
                id={`kb-tab-${l || 'base'}`}
                aria-selected={tab === l ? 'true' : 'false'}
                aria-controls="kb-tabpanel"
                class={blank(l ? open.translations[l] : undefined) && l ? 'kb-tab empty' : 'kb-tab'}
                onClick={() => setTab(l)}
              >
                {l ? fill(t.translation, { lang: l.toUpperCase() }) : t.asWritten}
              </button>
            ))}
          </div>
          <div role="tabpanel" id="kb-tabpanel" aria-labelledby={`kb-tab-${tab || 'base'}`} class="stack">
            {tab ? (
              <Translated
                lang={tab}
                value={open.translations[tab] ?? { title: '', body: '', category: '' }}
                errors={errors}
                onChange={(tr) => setOpen({ ...open, translations: { ...open.translations, [tab]: tr } })}
              />
            ) : (
              <Texts
                prefix=""
                title={open.title}
                body={open.body}
                errors={errors}
                onChange={(title, body) => setOpen({ ...open, title, body })}
              />
            )}
          </div>
          <Toggle
            id="kb-published"
            label={t.publishedToggle}
            checked={open.published}
            onChange={(published) => setOpen({ ...open, published })}
          />
          <div class="save-bar">
            <button type="submit" class="btn primary" disabled={state === 'saving' || (!dirty && Boolean(open.id))}>
              {t.save}
            </button>
            <span class="status" role="status">
              {status}
            </span>
          </div>
        </form>
      </div>

      <section class="kb-search" aria-labelledby="kb-search-title">
        <h2 id="kb-search-title">{t.search}</h2>
        <TextInput id="kb-q" label={t.words} hint={t.searchHint} value={q} onChange={setQ} />
        {searchError && <p class="err">{searchError}</p>}
        {hits && !hits.length && <p class="hint">{t.noHits}</p>}
        {hits && hits.length > 0 && (
          <ol class="kb-hits" aria-label={t.hits}>
            {hits.map((h) => (
              <li>
                <strong>{marked(h.title, h.highlight?.title)}</strong>
                <div class="muted">{marked(h.excerpt, h.highlight?.excerpt)}</div>
              </li>
            ))}
          </ol>
        )}
      </section>

      {deleting && (
        <Modal title={fill(t.deleteTitle, { title: deleting.title })} onClose={() => setDeleting(null)}>
          <p>{t.deleteText}</p>
          <div class="actions">
            <button type="button" class="btn danger" onClick={() => void remove(deleting)}>
              {t.delete}
            </button>
            <button type="button" class="btn ghost" onClick={() => setDeleting(null)}>
              {t.cancel}
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}

/** The title and body (with the preview) of one language; `prefix` names the fields' errors (`translations.fr.`). */
function Texts(props: {
  prefix: string;
  title: string;
  body: string;
  errors: Record<string, string>;
  onChange: (title: string, body: string) => void;
}) {
  const t = useStrings(kbStrings);
  const id = props.prefix ? `kb-${props.prefix.split('.')[1]}-` : 'kb-';
  return (
    <>
      <TextInput
        id={`${id}title`}
        label={t.articleTitle}
        value={props.title}
        error={props.errors[`${props.prefix}title`]}
        onChange={(title) => props.onChange(title, props.body)}
      />
      <div class="kb-edit-preview">
        <TextArea
          id={`${id}body`}
          rows={14}
          label={t.body}
          hint={t.bodyHint}
          value={props.body}
          error={props.errors[`${props.prefix}body`]}
          onChange={(body) => props.onChange(props.title, body)}
        />
        <section class="kb-preview" aria-label={t.preview}>
          <h2>{t.preview}</h2>
          <div class="kb-preview-body">
            {props.title && <h3>{props.title}</h3>}
            {props.body.trim() ? <Markdown source={props.body} /> : <p class="hint">{t.previewEmpty}</p>}
          </div>
        </section>
      </div>
    </>
  );
}

/** One translation: its title, body and (optional) category name in that language. */
function Translated(props: {
  lang: Lang;
  value: Translation;
  errors: Record<string, string>;
  onChange: (t: Translation) => void;
}) {
  const t = useStrings(kbStrings);
  const prefix = `translations.${props.lang}.`;
  return (
    <div lang={props.lang} dir={props.lang === 'ar' ? 'rtl' : undefined} class="stack">
      <p class="hint">{t.translationHint}</p>
      <Texts
        prefix={prefix}
        title={props.value.title}
        body={props.value.body}
        errors={props.errors}
        onChange={(title, body) => props.onChange({ ...props.value, title, body })}
      />
      <TextInput
        id={`kb-${props.lang}-category`}
        label={t.translatedCategory}
        value={props.value.category}
        error={props.errors[`${prefix}category`]}
        onChange={(category) => props.onChange({ ...props.value, category })}
      />
    </div>
  );
}
