import { batch, computed, signal } from '@preact/signals';
import type { Api } from '../api/client.js';
import type { BulkSet, Counts, ListItem } from '../api/types.js';
import { DEFAULT_FILTERS, listQuery, sameFilters, type Filters } from './filters.js';

const PAGE = 50;

/** The fields a bulk change touches, as they were before it: what Undo sends back. */
type Before = Pick<ListItem, 'id' | 'status' | 'priority' | 'agent_id' | 'tags'>;

/** The ticket list of the current filters, the counts per view, the selection and the focused row. */
export function createInbox(api: Api) {
  const filters = signal<Filters>(DEFAULT_FILTERS);
  const rows = signal<ListItem[]>([]);
  const total = signal(0);
  /** The search's `total` is a lower bound (`total_capped`): shown as "500+". */
  const capped = signal(false);
  const loading = signal(false);
  const error = signal<unknown>(null);
  const counts = signal<Counts | null>(null);
  const selected = signal<ReadonlySet<string>>(new Set());
  /** The row j/k moves, by ticket id (stays on its ticket when rows move). */
  const focused = signal<string | null>(null);
  const focusedIndex = computed(() => rows.value.findIndex((r) => r.id === focused.value));
  let generation = 0;
  /** Where the search's next page starts (/search pages by cursor). */
  let cursor: string | null = null;

  async function load(next = filters.value, { more = false } = {}) {
    const mine = ++generation;
    const changed = !sameFilters(next, filters.value);
    filters.value = next;
    loading.value = true;
    try {
      const offset = more ? rows.value.length : 0;
      // A refresh keeps as many rows as are shown, so a live update does not shorten the list.
      const limit = more ? PAGE : Math.min(200, Math.max(PAGE, changed ? 0 : rows.value.length));
      // A search looks through every ticket, whatever the view and its filters (issue 30).
      const page = next.q
        ? await api.search({ q: next.q, limit: Math.min(limit, 100), cursor: more ? (cursor ?? undefined) : undefined })
        : await api.list({ ...listQuery(next), limit, offset });
      if (next.q) cursor = (page as { next_cursor: string | null }).next_cursor;
      if (mine !== generation) return;
      batch(() => {
        rows.value = more
          ? [...rows.value, ...page.data.filter((r) => !rows.value.some((o) => o.id === r.id))]
          : page.data;
        total.value = page.total;
        capped.value = 'total_capped' in page && page.total_capped === true;
        error.value = null;
        if (changed) selected.value = new Set();
        else selected.value = new Set([...selected.value].filter((id) => rows.value.some((r) => r.id === id)));
      });
    } catch (err) {
      if (mine === generation) error.value = err;
    } finally {
      if (mine === generation) loading.value = false;
    }
  }

  async function loadCounts() {
    try {
      counts.value = await api.counts();
    } catch {
      // Counts are a nicety: the list works without them.
    }
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Reloads the list and the counts soon, once for a burst of live events. */
  function refreshSoon(ms = 150) {
    clearTimeout(timer);
    timer = setTimeout(() => void Promise.all([load(), loadCounts()]), ms);
  }

  /** Puts a changed row in place at once (live events carry the row), before the refresh decides membership. */
  function patch(item: ListItem) {
    if (rows.value.some((r) => r.id === item.id)) rows.value = rows.value.map((r) => (r.id === item.id ? item : r));
  }
  function remove(id: string) {
    rows.value = rows.value.filter((r) => r.id !== id);
  }

  function toggle(id: string, on = !selected.value.has(id)) {
    const next = new Set(selected.value);
    if (on) next.add(id);
    else next.delete(id);
    selected.value = next;
  }
  function selectAll(on: boolean) {
    selected.value = on ? new Set(rows.value.map((r) => r.id)) : new Set();
  }

  function move(by: number) {
    const list = rows.value;
    if (!list.length) return null;
    const at = focusedIndex.value;
    const next = list[Math.max(0, Math.min(list.length - 1, at < 0 ? 0 : at + by))]!;
    focused.value = next.id;
    return next.id;
  }

  /**
   * Changes every selected ticket; answers what changed and a function that puts the old values back
   * (grouped by old value, since one bulk call sets the same values on all its tickets).
   */
  async function bulk(set: BulkSet) {
    const ids = [...selected.value];
    const before = new Map<string, Before>(
      rows.value
        .filter((r) => selected.value.has(r.id))
        .map((r) => [r.id, { id: r.id, status: r.status, priority: r.priority, agent_id: r.agent_id, tags: r.tags }]),
    );
    const answer = await api.bulk(ids, set);
    const done = answer.results
      .filter((r) => r.ok)
      .map((r) => before.get(r.id))
      .filter((b): b is Before => !!b);
    selected.value = new Set(answer.results.filter((r) => !r.ok).map((r) => r.id));
    refreshSoon(0);
    const undo = async () => {
      const calls = new Map<string, { ids: string[]; set: BulkSet }>();
      const add = (key: string, id: string, s: BulkSet) => {
        const entry = calls.get(key) ?? { ids: [], set: s };
        entry.ids.push(id);
        calls.set(key, entry);
      };
      for (const b of done) {
        if (set.status) add(`s:${b.status}`, b.id, { status: b.status });
        if (set.priority) add(`p:${b.priority}`, b.id, { priority: b.priority });
        if (set.agent_id !== undefined) add(`a:${b.agent_id}`, b.id, { agent_id: b.agent_id });
        const added = (set.add_tags ?? []).filter((t) => !b.tags.includes(t));
        const removed = (set.remove_tags ?? []).filter((t) => b.tags.includes(t));
        if (added.length) add(`-:${added.join(',')}`, b.id, { remove_tags: added });
        if (removed.length) add(`+:${removed.join(',')}`, b.id, { add_tags: removed });
      }
      for (const c of calls.values()) await api.bulk(c.ids, c.set);
      refreshSoon(0);
    };
    return { ok: done.length, failed: answer.results.length - done.length, undo };
  }

  return {
    filters,
    rows,
    total,
    capped,
    loading,
    error,
    counts,
    selected,
    focused,
    focusedIndex,
    load,
    loadMore: () => load(filters.value, { more: true }),
    loadCounts,
    refreshSoon,
    patch,
    remove,
    toggle,
    selectAll,
    move,
    bulk,
  };
}
export type Inbox = ReturnType<typeof createInbox>;
