import { useStore } from '../state/context.js';
import type { Category } from '../types.js';

type FieldDef = Category['fields'][number];

const INPUT_TYPES: Record<string, 'text' | 'number' | 'email' | 'url' | 'date'> = {
  text: 'text',
  number: 'number',
  email: 'email',
  url: 'url',
  date: 'date',
};

/** What a control needs to be tied to its label, its error and its required mark. */
export interface FieldA11y {
  id: string;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
  'aria-required': 'true' | undefined;
}

/**
 * The visible "*" of a required field. Hidden from screen readers, which hear aria-required instead
 * (and the form says once what the mark means).
 */
export const RequiredMark = () => (
  <span class="req" aria-hidden="true">
    {' *'}
  </span>
);

/** One labelled form control with its error, for a built-in or a custom field. */
export function Field(props: {
  id: string;
  label: string;
  required?: boolean | undefined;
  error?: string | undefined;
  children: (a11y: FieldA11y) => preact.ComponentChildren;
}) {
  const errId = `${props.id}-err`;
  return (
    <div>
      <label for={props.id}>
        {props.label}
        {props.required && <RequiredMark />}
      </label>
      {props.children({
        id: props.id,
        'aria-invalid': props.error ? 'true' : undefined,
        'aria-describedby': props.error ? errId : undefined,
        'aria-required': props.required ? 'true' : undefined,
      })}
      {props.error && (
        <p class="err" id={errId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A category's custom field, by its type. */
export function CustomField(props: {
  field: FieldDef;
  value: string;
  error?: string | undefined;
  onChange: (v: string) => void;
}) {
  const { t } = useStore();
  const { field } = props;
  const id = `tk-f-${field.id}`;
  return (
    <Field id={id} label={field.label} required={field.required} error={props.error}>
      {(a) =>
        field.type === 'textarea' ? (
          <textarea
            {...a}
            value={props.value}
            placeholder={field.placeholder ?? undefined}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
        ) : field.type === 'select' ? (
          <select {...a} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
            <option value="">{t.chooseOption}</option>
            {field.options?.map((o) => (
              <option value={o}>{o}</option>
            ))}
          </select>
        ) : field.type === 'checkbox' ? (
          <input
            {...a}
            type="checkbox"
            checked={props.value === 'true'}
            onChange={(e) => props.onChange(String(e.currentTarget.checked))}
          />
        ) : (
          <input
            {...a}
            // Preact 11 types <input> per `type`; the value is one of these five at run time.
            type={(INPUT_TYPES[field.type] ?? 'text') as 'text'}
            value={props.value}
            placeholder={field.placeholder ?? undefined}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
        )
      }
    </Field>
  );
}
