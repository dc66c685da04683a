import { VIEWS } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { filtersQuery, fromSaved, sameFilters, type Filters } from '../state/filters.js';
import { useStore } from '../state/context.js';

/** The views with their counts, and the statuses; each a link, so it can be opened in a new tab. */
export function ViewsNav({ filters }: { filters: Filters }) {
  const s = useStore();
  const t = s.t.value;
  const counts = s.inbox.counts.value;
  const statuses = s.meta.value?.statuses ?? [];
  const saved = s.me.value?.saved_views ?? [];
  const href = (f: Partial<Filters>) =>
    `/console/${filtersQuery({ view: f.view ?? 'all', sort: filters.sort, ...(f.status ? { status: f.status } : {}) })}`;
  const plain =
    !filters.status && !filters.category && !filters.priority && !filters.tag && !filters.agent && !filters.q;

  return (
    <nav class="views" aria-label={t.views}>
      <ul>
        {VIEWS.map((v) => (
          <li key={v}>
            <a href={href({ view: v })} aria-current={plain && filters.view === v ? 'page' : undefined}>
              <span>{t[`view_${v}`]}</span>
              {counts && <span class="count">{counts.views[v] ?? 0}</span>}
            </a>
          </li>
        ))}
      </ul>
      {saved.length > 0 && (
        <>
          <h2 class="views-head">{t.savedViews}</h2>
          <ul>
            {saved.map((v) => {
              const f = fromSaved(v.filters);
              return (
                <li key={v.name} class="saved-view">
                  <a href={`/console/${filtersQuery(f)}`} aria-current={sameFilters(f, filters) ? 'page' : undefined}>
                    <span>{v.name}</span>
                  </a>
                  <button
                    type="button"
                    class="icon-btn small"
                    aria-label={fill(t.removeSavedView, { name: v.name })}
                    onClick={() => void s.saveInboxPrefs({ saved_views: saved.filter((x) => x !== v) })}
                  >
                    ×
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
      {statuses.length > 0 && (
        <>
          <h2 class="views-head">{t.byStatus}</h2>
          <ul>
            {statuses.map((st) => (
              <li key={st.id}>
                <a
                  href={href({ view: 'all', status: st.id })}
                  aria-current={filters.status === st.id && filters.view === 'all' ? 'page' : undefined}
                >
                  <span class="dot" style={st.color ? { '--c': st.color } : undefined} aria-hidden="true" />
                  <span>{s.statusName(st.id)}</span>
                  {counts && <span class="count">{counts.statuses[st.id] ?? 0}</span>}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
    </nav>
  );
}
