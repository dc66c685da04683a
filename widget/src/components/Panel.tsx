import { useEffect, useRef } from 'preact/hooks';
import { useStore } from '../state/context.js';
import { Home } from './Home.js';
import { lazy } from './lazy.js';
import { NewTicket } from './NewTicket.js';

const Article = lazy(() => import('./Article.js').then((m) => m.Article));
// A thread (and its reply box): fetched once a ticket is opened, or while a new one is written.
const Thread = lazy(() => import('./Thread.js').then((m) => m.Thread));

/** The dialog: a header (back, title, close), the current view, and a polite live region. */
export function Panel() {
  const s = useStore();
  const { t, config, view } = s;
  const dialog = useRef<HTMLDivElement>(null);
  const v = view.value;
  if (v.name === 'new') Thread.preload();
  // Focus moves into the dialog when it opens and to the top of each new view, unless the view has
  // already put it somewhere in its body (the confirmation after filing).
  useEffect(() => {
    const body = dialog.current?.querySelector('.body');
    if (body?.contains(s.ctx.root.activeElement)) return;
    const first = body?.querySelector<HTMLElement>('input:not([hidden]), select, textarea, button');
    (first ?? dialog.current?.querySelector<HTMLElement>('.icon'))?.focus();
  }, [v]);
  return (
    <div class="frame">
      <div
        ref={dialog}
        class={`tk ${config.design.theme}`}
        role="dialog"
        aria-modal="false"
        aria-labelledby="tk-title"
        lang={s.lang}
        dir={s.rtl ? 'rtl' : 'ltr'}
        onKeyDown={(e) => e.key === 'Escape' && s.ctx.requestClose()}
      >
        <div class="head">
          {v.name !== 'home' && (
            <button type="button" class="icon" aria-label={t.back} onClick={s.back}>
              ‹
            </button>
          )}
          {config.design.logo_url && <img src={config.design.logo_url} alt="" />}
          <h2 id="tk-title">{config.design.title}</h2>
          <button type="button" class="icon" aria-label={t.close} onClick={s.ctx.requestClose}>
            ×
          </button>
        </div>
        <div class="body">
          {v.name === 'home' && <Home />}
          {v.name === 'new' && <NewTicket />}
          {v.name === 'thread' && <Thread id={v.id} email={v.email} />}
          {v.name === 'article' && <Article id={v.id} />}
        </div>
        <div class="sr" aria-live="polite">
          {s.announcement.value}
        </div>
      </div>
    </div>
  );
}
