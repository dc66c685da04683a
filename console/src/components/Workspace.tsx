import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { fill } from '../i18n/t.js';
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

  /** Closes a ticket; the toast's Undo puts its status back. */
  async function closeWithUndo(id: string, subject: string, before: string, closed: string) {
    try {
      await s.api.status(id, closed);
    } catch (err) {
      s.toasts.show({ text: s.describe(err), error: true });
      return;
    }
    s.inbox.refreshSoon(0);
    s.toasts.show({
      text: fill(s.t.value.closedToast, { subject }),
      action: {
        label: s.t.value.undo,
        run: () =>
          void s.ticket
            .change(() => s.api.status(id, before))
            .then((ok) => {
              if (ok) s.toasts.show({ text: s.t.value.reopened });
            }),
      },
    });
  }

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
          // Close the open ticket (the portal's first closed status, as the server's own "close" would),
          // with Undo in the toast, and go on to the next one in the list.
          const closed = s.meta.value?.statuses.find((st) => st.closed);
          const current = s.ticket.ticket.value;
          if (!ticketId || !closed || current?.id !== ticketId || s.isClosed(current.status)) return;
          const rows = s.inbox.rows.value;
          const at = rows.findIndex((r) => r.id === ticketId);
          const next = at < 0 ? rows[0] : (rows[at + 1] ?? rows[at - 1]);
          void closeWithUndo(current.id, current.subject, current.status, closed.id);
          if (next && next.id !== ticketId) {
            s.inbox.focused.value = next.id;
            open(next.id);
          } else route(`/console/${key}`);
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
