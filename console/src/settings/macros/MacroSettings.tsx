import type { Macro, Priority } from '../../api/types.js';
import { fill } from '../../i18n/t.js';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ListRows, SettingsForm, TextArea, TextInput, slugOf } from '../kit/controls.js';
import { useResource, type Resource } from '../kit/useResource.js';
import './macros.css';
import { fillPlaceholders, unknownPlaceholders } from './placeholders.js';
import { macroStrings } from './strings.js';

const PRIORITIES: Priority[] = ['low', 'normal', 'high', 'urgent'];
/** A sample ticket id of the real shape (tkt_ and 16+ letters and digits). */
const SAMPLE_ID = 'tkt_7Hq2Lm9XwP4sK8dA';

/** `/admin r=macros`: name, message, and optionally the status or priority the macro sets. */
export function MacroSettings() {
  const t = useStrings(macroStrings);
  const s = useStore();
  const res = useResource<Macro[]>('macros', { list: true });
  const macros: Resource<Macro[]> = {
    ...res,
    async save(value = res.draft ?? undefined) {
      const ok = await res.save(value);
      // The reply box offers the macros it loaded at sign-in: give it the new ones.
      if (ok) void s.loadCatalog();
      return ok;
    },
  };
  const err = (path: string) => res.errors[`macros.${path}`];
  const sample = { name: t.sampleName, subject: t.sampleSubject, ticket_id: SAMPLE_ID, number: '#1042' };
  const statuses = s.meta.value?.statuses ?? [];
  const prio = s.t.value;

  return (
    <SettingsForm title={t.title} intro={t.intro} resource={macros}>
      {(list, set) => (
        <>
          {res.errors.macros && <p class="err">{res.errors.macros}</p>}
          {list.length === 0 && <p class="hint">{t.none}</p>}
          <ListRows<Macro>
            items={list}
            onChange={set}
            name={(m, i) => m.name || `${t.macro} ${i + 1}`}
            addLabel={t.addMacro}
            newItem={() => ({ id: '', name: '', message: '' })}
            render={(m, i, update) => {
              const unknown = unknownPlaceholders(m.message);
              return (
                <div class="macro-row">
                  <div class="pair">
                    <TextInput
                      id={`macro-${i}-name`}
                      label={t.name}
                      error={err(`${i}.name`)}
                      value={m.name}
                      onChange={(v) => update({ ...m, name: v, id: m.id === slugOf(m.name) ? slugOf(v) : m.id })}
                    />
                    <TextInput
                      id={`macro-${i}-id`}
                      label={t.id}
                      error={err(`${i}.id`)}
                      value={m.id}
                      onChange={(v) => update({ ...m, id: v })}
                    />
                  </div>
                  <TextArea
                    id={`macro-${i}-message`}
                    label={t.message}
                    error={err(`${i}.message`)}
                    rows={4}
                    value={m.message}
                    onChange={(v) => update({ ...m, message: v })}
                  />
                  <div class="macro-preview" id={`macro-${i}-preview`}>
                    <p class="hint">{t.preview}</p>
                    <p class="filled">{fillPlaceholders(m.message, sample)}</p>
                    {unknown.length > 0 && <p class="warn">{fill(t.unknown, { list: unknown.join(', ') })}</p>}
                  </div>
                  <div class="pair">
                    <Choice
                      id={`macro-${i}-status`}
                      label={t.status}
                      error={err(`${i}.status`)}
                      value={m.status ?? ''}
                      options={[{ value: '', label: t.keep }, ...statuses.map((x) => ({ value: x.id, label: x.name }))]}
                      onChange={(v) => update({ ...m, status: v || null })}
                    />
                    <Choice
                      id={`macro-${i}-priority`}
                      label={t.priority}
                      error={err(`${i}.priority`)}
                      value={m.priority ?? ''}
                      options={[
                        { value: '', label: t.keep },
                        ...PRIORITIES.map((p) => ({ value: p, label: prio[`prio_${p}`] })),
                      ]}
                      onChange={(v) => update({ ...m, priority: (v || null) as Priority | null })}
                    />
                  </div>
                </div>
              );
            }}
          />
        </>
      )}
    </SettingsForm>
  );
}
