import { SORTS, VIEWS, type SortName, type ViewName } from '../api/types.js';

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

export const sameFilters = (a: Filters, b: Filters) => filtersQuery(a) === filtersQuery(b);
