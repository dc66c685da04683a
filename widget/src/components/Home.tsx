import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useDebounced, useStore } from '../state/context.js';
import type { KbListItem } from '../types.js';
import { lazy } from './lazy.js';
import { Offline } from './Offline.js';

// Returning customers only: the list with status and unread replies is a file of its own.
const Tickets = lazy(() => import('./Tickets.js').then((m) => m.Tickets));

/** The text with the server's matched ranges in <mark> (plain offsets: nothing here is parsed as HTML). */
const marked = (text: string, ranges: [number, number][] = []) => {
  let at = 0;
  const out = [];
  for (const [a, b] of ranges) out.push(text.slice(at, a), <mark>{text.slice(a, (at = b))}</mark>);
  return [...out, text.slice(at)];
};

/** Greeting, knowledge-base search with live suggestions, a new ticket, and this browser's tickets. */
export function Home() {
  const s = useStore();
  const { t, config } = s;
  const q = s.query;
  const results = useSignal<KbListItem[] | null>(null);
  useDebounced(q.value, 250, async (v) => (results.value = v.trim().length < 2 ? null : await s.searchKb(v)));
  useEffect(() => void (config.modules.kb && s.loadArticles()), []);
  // Before a search: the knowledge base's first articles, so there is something to read at once.
  const list = results.value ?? s.articles.value;
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
          {(results.value || list.length > 0) && (
            <ul class="list" aria-label={results.value ? t.searchLabel : t.articles}>
              {list.length === 0 && <li class="muted">{t.noArticles}</li>}
              {list.map((a) => (
                <li>
                  <button type="button" class="item" onClick={() => s.go({ name: 'article', id: a.id })}>
                    {marked(a.title, a.highlight?.title)}
                    <small>{marked(a.excerpt, a.highlight?.excerpt)}</small>
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
      {s.saved.value.length || s.ctx.identity.signature ? <Tickets /> : <p class="muted">{t.noTickets}</p>}
    </>
  );
}
