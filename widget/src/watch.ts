import badgeCss from './styles/badge.css?inline';
import type { WatchContext, Watcher } from './types.js';

// The launcher's unread count, said after its label ("Contact support, 1 unread reply"); # is the number.
const UNREAD: Record<string, [string, string]> = {
  en: ['1 unread reply', '# unread replies'],
  de: ['1 ungelesene Antwort', '# ungelesene Antworten'],
  fr: ['1 réponse non lue', '# réponses non lues'],
  es: ['1 respuesta sin leer', '# respuestas sin leer'],
  ar: ['رد واحد غير مقروء', 'ردود غير مقروءة: #'],
};
// After a failed poll: try again this much later, never in a tight loop.
const RETRY_MS = 30_000;

/**
 * Unread replies while the page is open, panel open or not: a long poll of GET /updates (the server
 * answers when support replies, else after 25 s; docs/api.md) for the tickets this browser remembers
 * (the panel keeps them, with the replies seen, in localStorage) and a verified customer's. Shows the
 * count as a badge, in the launcher's accessible name and, when it grows, in a polite live region, and
 * tells the page (`reply`). No Preact: this is a small file of its own, loaded by the launcher only
 * for returning customers.
 */
export function startWatch(ctx: WatchContext): Watcher {
  const { button } = ctx;
  // As styles/adopt.ts does; not imported, which would tie this file to the panel's (see vite.panel.config.ts).
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(badgeCss);
  ctx.root.adoptedStyleSheets = [...ctx.root.adoptedStyleSheets, sheet];
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.hidden = true;
  badge.setAttribute('aria-hidden', 'true');
  const live = document.createElement('span');
  live.className = 'sr';
  live.setAttribute('aria-live', 'polite');
  button.append(badge);
  ctx.root.append(live);
  const tag = ctx.locale;
  const [one, many] = UNREAD[tag] ?? UNREAD[tag.split('-')[0]!] ?? UNREAD.en!;
  let unread = 0;
  let poll: XMLHttpRequest | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function count(n: number) {
    const said = n === 1 ? one : many.replace('#', String(n));
    button.setAttribute('aria-label', n ? `${ctx.label}, ${said}` : ctx.label);
    badge.textContent = String(n);
    badge.hidden = !n;
    if (n > unread) {
      if (!ctx.isOpen()) live.textContent = said;
      ctx.emit('reply', { unread: n });
      ctx.refresh();
    }
    unread = n;
  }

  /** `known` omitted: the answer comes at once (the first count, or what is seen changed). */
  function watch(known?: number) {
    poll?.abort();
    clearTimeout(retry);
    if (stopped) return;
    let saved: { id: string; email: string; seen?: number }[] = [];
    try {
      saved = JSON.parse(localStorage.getItem(`ticketing:tickets:${ctx.key}`) ?? '[]');
    } catch {
      /* no storage: nothing remembered */
    }
    const { email, signature } = ctx.identity;
    const signed = signature && email ? `${signature}.${encodeURIComponent(email)}` : '';
    if (!saved.length && !signed) return count(0);
    const q = new URLSearchParams();
    for (const t of saved) q.append('watch', `${t.id}:${t.seen ?? ''}:${t.email}`);
    if (known !== undefined) q.set('known', String(known));
    const x = (poll = new XMLHttpRequest());
    x.open('GET', `${ctx.api}/updates?${q}`);
    x.setRequestHeader('Authorization', `Bearer ${ctx.key}`);
    if (signed) x.setRequestHeader('X-Ticketing-Identity', signed);
    x.responseType = 'json';
    const again = () => (retry = setTimeout(watch, RETRY_MS));
    x.onload = () => {
      if (x.status !== 200) return again();
      count(x.response.unread);
      watch(unread);
    };
    x.onerror = again;
    x.send();
  }

  return {
    restart: () => watch(),
    stop() {
      stopped = true;
      poll?.abort();
      clearTimeout(retry);
      badge.remove();
      live.remove();
      ctx.root.adoptedStyleSheets = ctx.root.adoptedStyleSheets.filter((x) => x !== sheet);
    },
  };
}
