import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { SORTS, type BulkSet, type ListItem } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { filtersQuery, toSaved, type Filters } from '../state/filters.js';
import { useStore } from '../state/context.js';
import { relative } from './format.js';
import { ticketCount } from './ticket-count.js';
import { AgentOptions, Avatar, PriorityBadge, StatusBadge, TagChip } from './bits.js';

/** The ticket list of the current view: search, sort, filters, rows, and changes to several at once. */
export function InboxList({ filters, openId }: { filters: Filters; openId: string | null }) {
  const s = useStore();
  const t = s.t.value;
  const { route } = useLocation();
  const inbox = s.inbox;
  const rows = inbox.rows.value;
  const selected = inbox.selected.value;
  /** The list with `next` applied; `stay`: on the ticket opened meanwhile (a search fires 300 ms after the typing). */
  const go = (next: Partial<Filters>, stay = false) =>
    route(`${stay ? location.pathname : '/console/'}${filtersQuery({ ...filters, ...next })}`, true);

  return (
    <section class="inbox" aria-labelledby="inbox-title">
      <div class="inbox-head">
        <h1 id="inbox-title">
          {t[`view_${filters.view}`]}
          {filters.status && ` · ${s.statusName(filters.status)}`}
        </h1>
        <p class="total" aria-live="polite">
          {ticketCount(t, inbox.total.value, inbox.capped.value)}
        </p>
        <InboxPrefs filters={filters} />
      </div>
      <Toolbar filters={filters} go={go} />
      {selected.size > 0 && <BulkBar />}
      {inbox.error.value ? (
        <p class="err banner" role="alert">
          {s.describe(inbox.error.value)}{' '}
          <button type="button" class="btn small" onClick={() => void inbox.load()}>
            {t.retry}
          </button>
        </p>
      ) : null}
      {rows.length > 0 && (
        <div class="select-all">
          <input
            type="checkbox"
            id="select-all"
            checked={rows.every((r) => selected.has(r.id))}
            onChange={(e) => inbox.selectAll(e.currentTarget.checked)}
          />
          <label for="select-all">{t.selectAll}</label>
        </div>
      )}
      <ul
        class={`rows${s.me.value?.density === 'compact' ? ' compact' : ''}`}
        aria-label={t.tickets}
        aria-busy={inbox.loading.value}
      >
        {rows.map((r) => (
          <Row key={r.id} row={r} open={r.id === openId} query={filtersQuery(filters)} />
        ))}
      </ul>
      {!rows.length && !inbox.loading.value && !inbox.error.value && <p class="empty">{t.noTickets}</p>}
      {rows.length < inbox.total.value && (
        <button type="button" class="btn more" onClick={() => void inbox.loadMore()} disabled={inbox.loading.value}>
          {t.loadMore}
        </button>
      )}
    </section>
  );
}

function Toolbar({ filters, go }: { filters: Filters; go: (f: Partial<Filters>, stay?: boolean) => void }) {
  const s = useStore();
  const t = s.t.value;
  const q = useSignal(filters.q ?? '');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    if ((filters.q ?? '') !== q.value && document.activeElement?.id !== 'inbox-search') q.value = filters.q ?? '';
  }, [filters.q]);
  const search = (value: string, now = false) => {
    q.value = value;
    clearTimeout(timer.current);
    // A ticket opened from the list before the search fires stays open (it was closed again under the agent).
    timer.current = setTimeout(() => go({ q: value.trim() || undefined }, true), now ? 0 : 300);
  };
  const meta = s.meta.value;
  const set = (key: keyof Filters) => (e: Event) =>
    go({ [key]: (e.currentTarget as HTMLSelectElement).value || undefined });
  const filtered = Boolean(filters.status || filters.category || filters.priority || filters.tag || filters.agent);

  return (
    <div class="toolbar">
      <form
        role="search"
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          search(q.value, true);
        }}
      >
        <label for="inbox-search" class="sr">
          {t.search}
        </label>
        <input
          id="inbox-search"
          type="search"
          placeholder={t.searchPlaceholder}
          value={q.value}
          onInput={(e) => search(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()}
        />
      </form>
      <div class="sort">
        <label for="inbox-sort">{t.sort}</label>
        <select
          id="inbox-sort"
          value={filters.sort}
          onChange={(e) => go({ sort: e.currentTarget.value as Filters['sort'] })}
        >
          {SORTS.map((o) => (
            <option value={o}>{t[`sort_${o}`]}</option>
          ))}
        </select>
      </div>
      <details class="filters" open={filtered}>
        <summary>{t.filters}</summary>
        <div class="filter-grid">
          <label>
            <span>{t.status}</span>
            <select value={filters.status ?? ''} onChange={set('status')}>
              <option value="">{t.any}</option>
              {meta?.statuses.map((st) => (
                <option value={st.id}>{s.statusName(st.id)}</option>
              ))}
            </select>
          </label>
          <label>
            <span>{t.category}</span>
            <select value={filters.category ?? ''} onChange={set('category')}>
              <option value="">{t.any}</option>
              {meta?.categories.map((c) => (
                <option value={c.id}>{c.name}</option>
              ))}
            </select>
          </label>
          <label>
            <span>{t.priority}</span>
            <select value={filters.priority ?? ''} onChange={set('priority')}>
              <option value="">{t.any}</option>
              {(meta?.priorities ?? ['low', 'normal', 'high', 'urgent']).map((p) => (
                <option value={p}>{t[`prio_${p}`]}</option>
              ))}
            </select>
          </label>
          <label>
            <span>{t.agent}</span>
            <select value={filters.agent ?? ''} onChange={set('agent')}>
              <option value="">{t.any}</option>
              <AgentOptions current={filters.agent ?? null} />
            </select>
          </label>
          <label>
            <span>{t.tag}</span>
            <input
              list="tag-names"
              value={filters.tag ?? ''}
              onChange={(e) => go({ tag: e.currentTarget.value.trim() || undefined })}
            />
          </label>
        </div>
      </details>
      <datalist id="tag-names">
        {s.tagDefs.value.map((d) => (
          <option value={d.name} />
        ))}
      </datalist>
    </div>
  );
}

function Row({ row, open, query }: { row: ListItem; open: boolean; query: string }) {
  const s = useStore();
  const t = s.t.value;
  const locale = s.locale.value;
  const inbox = s.inbox;
  const last = row.last_message;
  const activity = row.last_activity_at ?? row.last_reply_at ?? row.created_at;
  const overdue = row.due_at && new Date(row.due_at).getTime() < Date.now();
  const focused = inbox.focused.value === row.id;
  const assignee = s.agentName(row.agent_id);
  return (
    <li class={`row${open ? ' open' : ''}${focused ? ' focused' : ''}${row.waiting_on === 'us' ? ' waiting' : ''}`}>
      <input
        type="checkbox"
        class="pick"
        aria-label={fill(t.selectTicket, { subject: row.subject })}
        checked={inbox.selected.value.has(row.id)}
        onChange={(e) => inbox.toggle(row.id, e.currentTarget.checked)}
      />
      <div class="row-body">
        <div class="row-top">
          <span class="customer">{row.name}</span>
          {row.waiting_on === 'us' && (
            <span class="waits" title={t.waitsForUs}>
              <span class="sr">{t.waitsForUs}</span>
            </span>
          )}
          <time dateTime={activity}>{relative(activity, locale)}</time>
        </div>
        <a
          id={`row-${row.id}`}
          class="subject"
          href={`/console/tickets/${row.id}${query}`}
          aria-current={open ? 'page' : undefined}
          onFocus={() => (inbox.focused.value = row.id)}
        >
          {row.subject}
        </a>
        <p class="preview">
          {last ? (
            <>
              {last.internal && <strong>{t.notePrefix} </strong>}
              {last.preview}
            </>
          ) : (
            t.noPreview
          )}
        </p>
        <div class="row-meta">
          <span class="number">#{row.number}</span>
          <StatusBadge status={row.status} />
          {row.priority !== 'normal' && <PriorityBadge priority={row.priority} />}
          {row.agent_id && assignee && <Avatar id={row.agent_id} name={assignee} />}
          <span class="assignee">{assignee ?? t.unassigned}</span>
          {row.tags.map((tag) => (
            <TagChip key={tag} tag={tag} />
          ))}
          {row.due_at && (
            <span class={`due${overdue ? ' late' : ''}`}>
              <time dateTime={row.due_at}>
                {fill(overdue ? t.overdue : t.due, { when: relative(row.due_at, locale) })}
              </time>
            </span>
          )}
        </div>
      </div>
    </li>
  );
}

function BulkBar() {
  const s = useStore();
  const t = s.t.value;
  const inbox = s.inbox;
  const tag = useSignal('');
  const busy = useSignal(false);
  const meta = s.meta.value;
  const closed = meta?.statuses.find((st) => st.closed)?.id;

  async function apply(set: BulkSet) {
    busy.value = true;
    try {
      const { ok, failed, undo } = await inbox.bulk(set);
      s.toasts.show({
        text: failed ? fill(t.bulkPartly, { ok, failed }) : ok === 1 ? t.bulkDoneOne : fill(t.bulkDone, { n: ok }),
        action: {
          label: t.undo,
          run: () =>
            void undo().then(
              () => s.toasts.show({ text: t.undone }),
              (err) => s.toasts.show({ text: s.describe(err), error: true }),
            ),
        },
      });
    } catch (err) {
      s.toasts.show({ text: s.describe(err), error: true });
    } finally {
      busy.value = false;
    }
  }
  const pick = (make: (v: string) => BulkSet) => (e: Event) => {
    const el = e.currentTarget as HTMLSelectElement;
    const v = el.value;
    el.value = '';
    if (v) void apply(make(v === '-' ? '' : v));
  };

  return (
    <div class="bulk" role="group" aria-label={t.bulkActions}>
      <span class="bulk-count">{fill(t.selected, { n: inbox.selected.value.size })}</span>
      <select aria-label={t.assignTo} onChange={pick((v) => ({ agent_id: v || null }))} disabled={busy.value}>
        <option value="">{t.assignTo}</option>
        <option value="-">{t.unassigned}</option>
        <AgentOptions current={null} />
      </select>
      <select aria-label={t.setStatus} onChange={pick((v) => ({ status: v }))} disabled={busy.value}>
        <option value="">{t.setStatus}</option>
        {meta?.statuses.map((st) => (
          <option value={st.id}>{s.statusName(st.id)}</option>
        ))}
      </select>
      <select
        aria-label={t.setPriority}
        onChange={pick((v) => ({ priority: v as BulkSet['priority'] }))}
        disabled={busy.value}
      >
        <option value="">{t.setPriority}</option>
        {(meta?.priorities ?? []).map((p) => (
          <option value={p}>{t[`prio_${p}`]}</option>
        ))}
      </select>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const name = tag.value.trim();
          if (!name) return;
          tag.value = '';
          void apply({ add_tags: [name] });
        }}
      >
        <input
          aria-label={t.addTag}
          placeholder={t.addTag}
          list="tag-names"
          value={tag.value}
          onInput={(e) => (tag.value = e.currentTarget.value)}
        />
        <button type="submit" class="btn small" disabled={busy.value}>
          {t.addTagButton}
        </button>
      </form>
      {closed && (
        <button type="button" class="btn small" disabled={busy.value} onClick={() => void apply({ status: closed })}>
          {t.closeTickets}
        </button>
      )}
      <button type="button" class="btn small ghost" onClick={() => inbox.selectAll(false)}>
        {t.clearSelection}
      </button>
    </div>
  );
}

/** Compact rows on or off, and "Save view": the agent's own, kept in their profile. */
function InboxPrefs({ filters }: { filters: Filters }) {
  const s = useStore();
  const t = s.t.value;
  const me = s.me.value;
  const naming = useSignal(false);
  const name = useSignal('');
  if (!me) return null;
  const compact = me.density === 'compact';
  const views = me.saved_views ?? [];
  const save = (e: Event) => {
    e.preventDefault();
    const n = name.value.trim();
    if (!n) return;
    const rest = views.filter((v) => v.name.toLowerCase() !== n.toLowerCase());
    void s.saveInboxPrefs({ saved_views: [...rest, { name: n, filters: toSaved(filters) }] });
    naming.value = false;
    name.value = '';
  };
  return (
    <div class="inbox-prefs">
      <button
        type="button"
        class="btn small ghost"
        aria-pressed={compact}
        onClick={() => void s.saveInboxPrefs({ density: compact ? 'comfortable' : 'compact' })}
      >
        {t.compactRows}
      </button>
      {naming.value ? (
        <form onSubmit={save} class="save-view">
          <label for="saved-view-name" class="sr">
            {t.savedViewName}
          </label>
          <input
            id="saved-view-name"
            maxLength={60}
            placeholder={t.savedViewName}
            value={name.value}
            onInput={(e) => (name.value = e.currentTarget.value)}
          />
          <button type="submit" class="btn small">
            {t.save}
          </button>
        </form>
      ) : (
        <button type="button" class="btn small ghost" onClick={() => (naming.value = true)}>
          {t.saveView}
        </button>
      )}
    </div>
  );
}
