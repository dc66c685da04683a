import type { Action } from '@ticketing/server/model';
import { useStore, useStrings } from '../../state/context.js';
import { settingsStrings } from '../kit/strings.js';
import { fmt, ruleStrings, type RuleStrings } from './strings.js';

/** Every action type (docs/api.md "rules"), in the order the select offers them. */
const ACTION_TYPES = [
  'set_priority',
  'set_status',
  'assign',
  'add_tag',
  'notify',
  'webhook',
] as const satisfies readonly Action['type'][];

export interface Option {
  value: string;
  label: string;
}

/** With the current value kept even when the settings no longer offer it (so nothing is lost silently). */
const withCurrent = (options: Option[], value: string) =>
  value === '' || options.some((o) => o.value === value) ? options : [{ value, label: value }, ...options];

/** What the value of an action may be: a list to pick from, or free text (a mail address, a URL). */
function useActionChoices(): (type: Action['type']) => Option[] | null {
  const s = useStore();
  return (type) => {
    const meta = s.meta.value;
    if (type === 'set_priority')
      return (meta?.priorities ?? PRIORITIES).map((p) => ({ value: p, label: s.t.value[`prio_${p}`] }));
    if (type === 'set_status') return (meta?.statuses ?? []).map((x) => ({ value: x.id, label: x.name }));
    if (type === 'assign') return s.agents.value.map((a) => ({ value: a.id, label: a.name }));
    if (type === 'add_tag') return s.tagDefs.value.length ? s.tagDefs.value.map((x) => plain(x.name)) : null;
    return null;
  };
}
const plain = (v: string): Option => ({ value: v, label: v });
const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

export const actionLabel = (t: RuleStrings, type: Action['type']) => t[`action_${type}`];

/**
 * The actions of a rule or an escalation entry: one row each, its type and its value (picked from the
 * agents, statuses, priorities or tags when the type names one; typed for a mail address or a webhook).
 * `errors` are the resource's field errors, `path` where these actions sit in it (`rules.0.actions`).
 */
export function ActionRows(props: {
  id: string;
  actions: Action[];
  onChange: (next: Action[]) => void;
  errors: Record<string, string>;
  path: string;
}) {
  const t = useStrings(ruleStrings);
  const ts = useStrings(settingsStrings);
  const choices = useActionChoices();
  const { actions, onChange } = props;
  const set = (i: number, next: Action) => onChange(actions.map((a, j) => (j === i ? next : a)));
  const listError = props.errors[props.path];
  return (
    <div class="rule-rows">
      {actions.map((a, i) => {
        const id = `${props.id}-${i}`;
        const options = choices(a.type);
        const err = props.errors[`${props.path}.${i}.value`] ?? props.errors[`${props.path}.${i}.type`];
        const n = i + 1;
        return (
          <div class="rule-row two">
            <select
              id={`${id}-type`}
              aria-label={fmt(t.actionType, { n })}
              value={a.type}
              onChange={(e) => {
                const type = e.currentTarget.value as Action['type'];
                set(i, { type, value: choices(type)?.[0]?.value ?? '' });
              }}
            >
              {ACTION_TYPES.map((x) => (
                <option value={x}>{actionLabel(t, x)}</option>
              ))}
            </select>
            {options ? (
              <select
                id={`${id}-value`}
                aria-label={fmt(t.actionValue, { n })}
                value={a.value}
                aria-invalid={err ? 'true' : undefined}
                aria-describedby={err ? `${id}-err` : undefined}
                onChange={(e) => set(i, { ...a, value: e.currentTarget.value })}
              >
                {withCurrent(options, a.value).map((o) => (
                  <option value={o.value}>{o.label}</option>
                ))}
              </select>
            ) : (
              <input
                id={`${id}-value`}
                aria-label={fmt(t.actionValue, { n })}
                type={(a.type === 'notify' ? 'email' : a.type === 'webhook' ? 'url' : 'text') as 'text'}
                placeholder={
                  a.type === 'notify' ? t.notifyPlaceholder : a.type === 'webhook' ? t.webhookPlaceholder : ''
                }
                value={a.value}
                aria-invalid={err ? 'true' : undefined}
                aria-describedby={err ? `${id}-err` : undefined}
                onInput={(e) => set(i, { ...a, value: e.currentTarget.value })}
              />
            )}
            <button
              type="button"
              class="btn small ghost danger"
              aria-label={fmt(t.removeAction, { n })}
              onClick={() => onChange(actions.filter((_, j) => j !== i))}
            >
              {ts.remove}
            </button>
            {err && (
              <p class="err" id={`${id}-err`}>
                {err}
              </p>
            )}
          </div>
        );
      })}
      {listError && <p class="err">{listError}</p>}
      <button
        type="button"
        class="btn small"
        onClick={() =>
          onChange([...actions, { type: 'set_priority', value: choices('set_priority')![2]?.value ?? '' }])
        }
      >
        {t.addAction}
      </button>
    </div>
  );
}
