import { useBox } from '../state/box.js';
import { useDebounced, useStore } from '../state/context.js';
import type { KbListItem } from '../types.js';
import { Offline } from './Offline.js';

/** Greeting, knowledge-base search with live suggestions, a new ticket, and this browser's tickets. */
export function Home() {
  const s = useStore();
  const { t, config } = s;
  const q = useBox('');
  const results = useBox<KbListItem[] | null>(null);
  useDebounced(q.value, 250, async (v) => (results.value = v.trim().length < 2 ? null : await s.searchKb(v)));
  return (
    <>
      <p>{config.design.greeting}</p>
      <Offline />
      {config.modules.kb && (
        <div role="search">
          <label for="tk-q">{t.searchLabel}</label>
          <input
            id="tk-q"
            type="search"
            placeholder={t.searchPlaceholder}
            value={q.value}
            onInput={(e) => (q.value = e.currentTarget.value)}
          />
          {results.value && (
            <ul class="list" aria-label={t.searchLabel}>
              {results.value.length === 0 && <li class="muted">{t.noArticles}</li>}
              {results.value.map((a) => (
                <li>
                  <button type="button" class="item" onClick={() => s.go({ name: 'article', id: a.id })}>
                    {a.title}
                    <small>{a.excerpt}</small>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <button type="button" class="btn" onClick={() => s.go({ name: 'new' })}>
        {t.newTicket}
      </button>
      <h3>{t.yourTickets}</h3>
      {s.saved.value.length === 0 ? (
        <p class="muted">{t.noTickets}</p>
      ) : (
        <>
          <ul class="list">
            {s.saved.value.map((x) => (
              <li>
                <button type="button" class="item" onClick={() => s.openTicket(x.id, x.email)}>
                  {x.subject}
                  <small>{new Date(x.created_at).toLocaleDateString(s.ctx.locale)}</small>
                </button>
              </li>
            ))}
          </ul>
          <button type="button" class="link" onClick={s.forget}>
            {t.forget}
          </button>
        </>
      )}
    </>
  );
}
