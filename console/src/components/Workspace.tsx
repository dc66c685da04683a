import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { filtersQuery, parseFilters } from '../state/filters.js';
import { useStore } from '../state/context.js';
import { InboxList } from './InboxList.js';
import { TicketPane } from './TicketPane.js';
import { openShortcuts } from './Shortcuts.js';
import { ViewsNav } from './ViewsNav.js';

/** Typing in these must not trigger shortcuts. */
const typingIn = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));

const focusRow = (id: string) => document.getElementById(`row-${id}`)?.focus();
const focusReply = () => document.getElementById('reply-text')?.focus();

/**
 * The inbox and the open ticket: side by side on a large screen, one at a time on a phone. The
 * filters come from the query string, so a view can be bookmarked and survives opening a ticket.
 */
export function Workspace({ ticketId }: { ticketId: string | null }) {
  const s = useStore();
  const { query, route } = useLocation();
  const filters = parseFilters(query);
  const key = filtersQuery(filters);

  useEffect(() => {
    void s.inbox.load(filters);
  }, [key]);
  useEffect(() => {
    if (ticketId) {
      s.inbox.focused.value = ticketId;
      void s.ticket.open(ticketId);
    } else s.ticket.close();
  }, [ticketId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const open = (id: string, reply = false) => {
        route(`/console/tickets/${id}${key}`);
        if (reply) setTimeout(focusReply, 0);
      };
      switch (e.key) {
        case 'j':
        case 'k': {
          const id = s.inbox.move(e.key === 'j' ? 1 : -1);
          if (id) focusRow(id);
          break;
        }
        case 'r': {
          if (ticketId) focusReply();
          else if (s.inbox.focused.value) open(s.inbox.focused.value, true);
          break;
        }
        case 'e': {
          // Close the open ticket: the portal's first closed status, as the server's own "close" would.
          const closed = s.meta.value?.statuses.find((st) => st.closed);
          if (!ticketId || !closed) return;
          void s.ticket.change(() => s.api.status(ticketId, closed.id));
          break;
        }
        case 'x': {
          const id = s.inbox.focused.value;
          if (id) s.inbox.toggle(id);
          break;
        }
        case '/':
          document.getElementById('inbox-search')?.focus();
          break;
        case '?':
          openShortcuts();
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [ticketId, key]);

  return (
    <div class={`workspace ${ticketId ? 'has-ticket' : ''}`}>
      <ViewsNav filters={filters} />
      <main id="main" class="panes" tabIndex={-1}>
        <InboxList filters={filters} openId={ticketId} />
        {ticketId && <TicketPane id={ticketId} listQuery={key} />}
      </main>
    </div>
  );
}
