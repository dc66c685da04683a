import { useEffect, useState } from 'preact/hooks';
import type { Priority } from '../../api/types.js';
import { fill } from '../../i18n/t.js';
import { useStore, useStrings } from '../../state/context.js';
import { ColorInput, ListRows, SettingsForm, TextInput, Toggle, slugOf } from '../kit/controls.js';
import { useResource, type Resource } from '../kit/useResource.js';
import { putBack, statusesInUse, type InUse } from './statusesInUse.js';
import './statuses.css';
import { statusStrings } from './strings.js';

/** `/admin r=statuses` and `r=tags`: docs/api.md "/admin". */
interface Status {
  id: string;
  name: string;
  closed: boolean;
  color: string | null;
}
interface Tag {
  name: string;
  color: string;
}

/** A reason of the server's 409, in the screen's language. */
function explain(t: typeof statusStrings.en, r: InUse[string][number]): string {
  return 'tickets' in r
    ? fill(t.tickets, { n: r.tickets })
    : 'usedBy' in r
      ? fill(t.usedBy, { what: r.usedBy })
      : r.other;
}

/** Statuses (colour, closed), the fixed priorities, and tags with colours: three parts, saved apart. */
export function StatusSettings() {
  const t = useStrings(statusStrings);
  const s = useStore();
  const res = useResource<Status[]>('statuses', { list: true });
  /** Statuses the server refused to drop, put back in the list, with the reasons in words. */
  const [kept, setKept] = useState<Record<string, string[]>>({});

  const statuses: Resource<Status[]> = {
    ...res,
    discard() {
      setKept({});
      res.discard();
    },
    async save(value = res.draft ?? undefined) {
      setKept({});
      const ok = await res.save(value);
      if (ok) void s.loadCatalog();
      return ok;
    },
  };

  // A refused removal: the removed rows come back where they were, each saying why.
  useEffect(() => {
    const f = res.failure;
    if (f?.code !== 'status_in_use' || !res.draft || !res.saved) return;
    const inUse = statusesInUse(f);
    setKept(Object.fromEntries(Object.entries(inUse).map(([id, reasons]) => [id, reasons.map((r) => explain(t, r))])));
    res.setDraft(putBack(res.draft, res.saved, Object.keys(inUse)));
  }, [res.failure]);

  const err = (path: string) => res.errors[`statuses.${path}`];
  const listError = res.failure?.code === 'status_in_use' ? undefined : res.errors.statuses;

  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={statuses}>
        {(list, set) => (
          <>
            {listError && <p class="err">{listError}</p>}
            <ListRows
              items={list}
              onChange={set}
              name={(x, i) => x.name || `${t.status} ${i + 1}`}
              addLabel={t.addStatus}
              newItem={() => ({ id: '', name: '', closed: false, color: '#6b7280' })}
              render={(x, i, update) => (
                <div class={kept[x.id] ? 'status-row kept' : 'status-row'}>
                  <div class="pair">
                    <TextInput
                      id={`status-${i}-name`}
                      label={t.name}
                      error={err(`${i}.name`)}
                      value={x.name}
                      onChange={(v) => update({ ...x, name: v, id: x.id === slugOf(x.name) ? slugOf(v) : x.id })}
                    />
                    <TextInput
                      id={`status-${i}-id`}
                      label={t.id}
                      hint={i === 0 ? t.idHint : undefined}
                      error={err(`${i}.id`)}
                      value={x.id}
                      onChange={(v) => update({ ...x, id: v })}
                    />
                  </div>
                  <div class="pair">
                    <ColorInput
                      id={`status-${i}-color`}
                      label={t.color}
                      error={err(`${i}.color`)}
                      value={x.color ?? ''}
                      onChange={(v) => update({ ...x, color: v || null })}
                    />
                    <Toggle
                      id={`status-${i}-closed`}
                      label={t.closed}
                      checked={x.closed}
                      onChange={(v) => update({ ...x, closed: v })}
                    />
                  </div>
                  <p class="looks">
                    {t.looks}{' '}
                    <span class="badge status" style={x.color ? { '--c': x.color } : undefined}>
                      {x.name || x.id}
                    </span>
                  </p>
                  {kept[x.id] && (
                    <div class="err" role="alert" id={`status-${i}-kept`}>
                      <p>{t.keptBack}</p>
                      {kept[x.id]!.map((m) => (
                        <p>{m}</p>
                      ))}
                    </div>
                  )}
                </div>
              )}
            />
          </>
        )}
      </SettingsForm>
      <Priorities />
      <TagSettings />
    </>
  );
}

function Priorities() {
  const t = useStrings(statusStrings);
  const s = useStore();
  const [list, setList] = useState<Priority[] | null>(null);
  useEffect(() => {
    s.api.adminGet<Priority[]>('priorities').then(setList, () => setList([]));
  }, []);
  return (
    <section class="settings-page" aria-labelledby="priorities-title">
      <h2 id="priorities-title">{t.priorities}</h2>
      <p class="intro">{t.prioritiesIntro}</p>
      <ul class="priority-list">
        {list?.map((p) => (
          <li>
            {/* PriorityBadge's markup: importing components/bits.js here would split the app's entry. */}
            <span class={`badge prio prio-${p}`}>{s.t.value[`prio_${p}`]}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function TagSettings() {
  const t = useStrings(statusStrings);
  const s = useStore();
  const res = useResource<Tag[]>('tags', { list: true });
  const tags: Resource<Tag[]> = {
    ...res,
    async save(value = res.draft ?? undefined) {
      const ok = await res.save(value);
      if (ok) void s.loadCatalog();
      return ok;
    },
  };
  const err = (path: string) => res.errors[`tags.${path}`];
  return (
    <SettingsForm title={t.tags} intro={t.tagsIntro} resource={tags} headingId="tags-title" saveLabel={t.saveTags}>
      {(list, set) => (
        <>
          {res.errors.tags && <p class="err">{res.errors.tags}</p>}
          <ListRows
            items={list}
            onChange={set}
            name={(x, i) => x.name || `${t.tag} ${i + 1}`}
            addLabel={t.addTag}
            newItem={() => ({ name: '', color: '#6b7280' })}
            render={(x, i, update) => (
              <div class="pair tag-row">
                <TextInput
                  id={`tag-${i}-name`}
                  label={t.tagName}
                  error={err(`${i}.name`)}
                  value={x.name}
                  onChange={(v) => update({ ...x, name: v })}
                />
                <ColorInput
                  id={`tag-${i}-color`}
                  label={t.color}
                  error={err(`${i}.color`)}
                  value={x.color}
                  onChange={(v) => update({ ...x, color: v })}
                />
                <p class="looks">
                  {t.looks}{' '}
                  <span class="tag" style={{ '--c': x.color }}>
                    {x.name || '…'}
                  </span>
                </p>
              </div>
            )}
          />
        </>
      )}
    </SettingsForm>
  );
}
