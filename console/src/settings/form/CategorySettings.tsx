import type { ComponentChildren } from 'preact';
import { useStrings } from '../../state/context.js';
import { Choice, ListRows, SettingsForm, TextArea, TextInput, Toggle, slugOf } from '../kit/controls.js';
import { useResource, type Resource } from '../kit/useResource.js';
import { formStrings } from './strings.js';

/** `/admin r=categories`: docs/api.md "/admin", `categories`. */
const FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'url', 'select', 'checkbox', 'date'] as const;
type FieldType = (typeof FIELD_TYPES)[number];
interface Field {
  id: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: string[];
  placeholder?: string | null;
}
interface Category {
  id: string;
  name: string;
  fields: Field[];
}

/** While the id still is what the old name gave, it follows the name. */
const named = <T extends { id: string; name?: string; label?: string }>(x: T, key: 'name' | 'label', v: string): T =>
  ({ ...x, [key]: v, id: x.id === slugOf(x[key] ?? '') ? slugOf(v) : x.id }) as T;

/** Blank option lines are only where the admin is still typing: they are not sent. */
const cleaned = (list: Category[]) =>
  list.map((c) => ({
    ...c,
    fields: c.fields.map((f) => (f.options ? { ...f, options: f.options.map((o) => o.trim()).filter(Boolean) } : f)),
  }));

/** The categories a customer picks from, each with its own custom fields; saved apart from the switches. */
export function CategorySettings() {
  const t = useStrings(formStrings);
  const res = useResource<Category[]>('categories', { list: true });
  const resource: Resource<Category[]> = {
    ...res,
    save: (v = res.draft ?? undefined) => res.save(v ? cleaned(v) : undefined),
  };
  const err = (path: string) => res.errors[`categories.${path}`];
  const typeLabel: Record<FieldType, string> = {
    text: t.typeText,
    textarea: t.typeTextarea,
    number: t.typeNumber,
    email: t.typeEmail,
    url: t.typeUrl,
    select: t.typeSelect,
    checkbox: t.typeCheckbox,
    date: t.typeDate,
  };

  return (
    <SettingsForm
      title={t.categories}
      intro={t.categoriesIntro}
      resource={resource}
      headingId="categories-title"
      saveLabel={t.saveCategories}
    >
      {(list, set) => (
        <>
          {res.errors.categories && <p class="err">{res.errors.categories}</p>}
          <ListRows
            items={list}
            onChange={set}
            name={(c, i) => c.name || `${t.category} ${i + 1}`}
            addLabel={t.addCategory}
            newItem={() => ({ id: '', name: '', fields: [] })}
            render={(c, i, update) => (
              <fieldset class="category">
                <legend>{c.name || `${t.category} ${i + 1}`}</legend>
                <div class="pair">
                  <TextInput
                    id={`cat-${i}-name`}
                    label={t.categoryName}
                    error={err(`${i}.name`)}
                    value={c.name}
                    onChange={(v) => update(named(c, 'name', v))}
                  />
                  <TextInput
                    id={`cat-${i}-id`}
                    label={t.id}
                    hint={t.idHint}
                    error={err(`${i}.id`)}
                    value={c.id}
                    onChange={(v) => update({ ...c, id: v })}
                  />
                </div>
                <h3 class="fields-title">{t.customFields}</h3>
                {c.fields.length === 0 && <p class="hint">{t.noFields}</p>}
                <ListRows<Field>
                  items={c.fields}
                  onChange={(fields) => update({ ...c, fields })}
                  name={(f, j) => f.label || `${t.field} ${j + 1}`}
                  addLabel={t.addField}
                  newItem={() => ({ id: '', label: '', type: 'text', required: false })}
                  render={(f, j, updateField) => (
                    <FieldRow>
                      <div class="pair">
                        <TextInput
                          id={`cat-${i}-f-${j}-label`}
                          label={t.fieldLabel}
                          error={err(`${i}.fields.${j}.label`)}
                          value={f.label}
                          onChange={(v) => updateField(named(f, 'label', v))}
                        />
                        <TextInput
                          id={`cat-${i}-f-${j}-id`}
                          label={t.id}
                          error={err(`${i}.fields.${j}.id`)}
                          value={f.id}
                          onChange={(v) => updateField({ ...f, id: v })}
                        />
                      </div>
                      <div class="pair">
                        <Choice
                          id={`cat-${i}-f-${j}-type`}
                          label={t.fieldType}
                          error={err(`${i}.fields.${j}.type`)}
                          value={f.type}
                          options={FIELD_TYPES.map((v) => ({ value: v, label: typeLabel[v] }))}
                          onChange={(type) => {
                            const { options, ...rest } = f;
                            updateField(
                              type === 'select' ? { ...rest, type, options: options ?? [] } : { ...rest, type },
                            );
                          }}
                        />
                        <TextInput
                          id={`cat-${i}-f-${j}-placeholder`}
                          label={t.placeholder}
                          error={err(`${i}.fields.${j}.placeholder`)}
                          value={f.placeholder}
                          onChange={(v) => updateField({ ...f, placeholder: v || null })}
                        />
                      </div>
                      {f.type === 'select' && (
                        <TextArea
                          id={`cat-${i}-f-${j}-options`}
                          label={t.options}
                          hint={t.optionsHint}
                          rows={3}
                          error={
                            err(`${i}.fields.${j}.options`) ??
                            Object.entries(res.errors).find(([k]) =>
                              k.startsWith(`categories.${i}.fields.${j}.options.`),
                            )?.[1]
                          }
                          value={(f.options ?? []).join('\n')}
                          onChange={(v) => updateField({ ...f, options: v.split('\n') })}
                        />
                      )}
                      <Toggle
                        id={`cat-${i}-f-${j}-required`}
                        label={t.required}
                        checked={f.required}
                        onChange={(v) => updateField({ ...f, required: v })}
                      />
                    </FieldRow>
                  )}
                />
              </fieldset>
            )}
          />
        </>
      )}
    </SettingsForm>
  );
}

const FieldRow = ({ children }: { children: ComponentChildren }) => <div class="field-row">{children}</div>;
