import { SORTS, VIEWS, type SavedView, type SortName, type ViewName } from '../api/types.js';

/** What the inbox shows; it lives in the URL's query string so a view can be bookmarked. */
export interface Filters {
  view: ViewName;
  sort: SortName;
  status?: string;
  category?: string;
  priority?: string;
  tag?: string;
  agent?: string;
  q?: string;
}

export const DEFAULT_FILTERS: Filters = { view: 'needs_reply', sort: 'activity' };
const EXTRA = ['status', 'category', 'priority', 'tag', 'agent', 'q'] as const;

const oneOf = <T extends string>(list: readonly T[], value: string | undefined, fallback: T): T =>
  list.includes(value as T) ? (value as T) : fallback;

export function parseFilters(query: Record<string, string | undefined>): Filters {
  const f: Filters = {
    view: oneOf(VIEWS, query.view, DEFAULT_FILTERS.view),
    sort: oneOf(SORTS, query.sort, DEFAULT_FILTERS.sort),
  };
  for (const k of EXTRA) {
    const v = query[k]?.trim();
    if (v) f[k] = v;
  }
  return f;
}

/** The query string of `f` ("" for the default inbox), defaults left out so URLs stay short. */
export function filtersQuery(f: Filters): string {
  const out = new URLSearchParams();
  if (f.view !== DEFAULT_FILTERS.view) out.set('view', f.view);
  for (const k of EXTRA) if (f[k]) out.set(k, f[k]!);
  if (f.sort !== DEFAULT_FILTERS.sort) out.set('sort', f.sort);
  const s = out.toString();
  return s ? `?${s}` : '';
}

/** The /list query for `f`. */
export const listQuery = (f: Filters) => ({
  view: f.view,
  sort: f.sort,
  status: f.status,
  category: f.category,
  priority: f.priority,
  tag: f.tag,
  agent_id: f.agent,
  q: f.q,
});

/** A saved view's filters (the /list parameters) as the inbox's. */
export const fromSaved = (f: SavedView['filters']): Filters =>
  parseFilters({
    view: f.view ?? 'all',
    sort: f.sort,
    status: f.status,
    category: f.category,
    priority: f.priority,
    tag: f.tag,
    agent: f.agent_id,
    q: f.q,
  });

/** The inbox's filters as a saved view keeps them. */
export function toSaved(f: Filters): SavedView['filters'] {
  const out: SavedView['filters'] = { view: f.view, sort: f.sort };
  for (const k of EXTRA) if (f[k]) out[k === 'agent' ? 'agent_id' : k] = f[k];
  return out;
}

export const sameFilters = (a: Filters, b: Filters) => filtersQuery(a) === filtersQuery(b);
