import type { Condition, Rule } from '@ticketing/server/model';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ListRows, SettingsForm, TextInput, Toggle } from '../kit/controls.js';
import { settingsStrings } from '../kit/strings.js';
import { useResource } from '../kit/useResource.js';
import { ActionRows, type Option } from './ActionRows.js';
import { EVENTS, eventLabel } from './ruleEvents.js';
import { RuleTester } from './RuleTester.js';
import './rules.css';
import { fmt, ruleStrings } from './strings.js';

const FIELDS = [
  'subject',
  'message',
  'email',
  'category',
  'priority',
  'status',
  'from_customer',
] as const satisfies readonly Condition['field'][];
const OPS = [
  'equals',
  'not_equals',
  'contains',
  'starts_with',
  'ends_with',
] as const satisfies readonly Condition['op'][];

/** The first `rule-<n>` no rule has: ids are slugs the admin never needs to see. */
const freeId = (rules: Rule[]) => {
  let n = rules.length + 1;
  while (rules.some((r) => r.id === `rule-${n}`)) n++;
  return `rule-${n}`;
};

/** `/admin r=rules`: the rules builder, with a test against a stored ticket beside it. */
export function RuleSettings() {
  const t = useStrings(ruleStrings);
  const res = useResource<Rule[]>('rules', { list: true });
  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={res}>
        {(rules, set) => (
          <>
            {res.errors.rules && <p class="err">{res.errors.rules}</p>}
            <ListRows
              items={rules}
              onChange={set}
              name={(r, i) => r.name || fmt(t.untitled, { n: i + 1 })}
              addLabel={t.addRule}
              newItem={(): Rule => ({
                id: freeId(rules),
                name: '',
                enabled: true,
                event: 'ticket.created',
                conditions: [],
                actions: [{ type: 'set_priority', value: 'high' }],
              })}
              render={(rule, i, update) => <RuleEditor rule={rule} index={i} update={update} errors={res.errors} />}
            />
          </>
        )}
      </SettingsForm>
      {/* Below the builder, not beside it: the rows of selects need the width. */}
      {res.draft && <RuleTester rules={res.draft} />}
    </>
  );
}

function RuleEditor({
  rule,
  index: i,
  update,
  errors,
}: {
  rule: Rule;
  index: number;
  update: (next: Rule) => void;
  errors: Record<string, string>;
}) {
  const t = useStrings(ruleStrings);
  const id = `rule-${i}`;
  const path = `rules.${i}`;
  return (
    <fieldset class="rule" aria-label={rule.name || fmt(t.untitled, { n: i + 1 })}>
      <div class="rule-head">
        <TextInput
          id={`${id}-name`}
          label={t.name}
          value={rule.name}
          error={errors[`${path}.name`] ?? errors[`${path}.id`]}
          onChange={(v) => update({ ...rule, name: v })}
        />
        <Toggle
          id={`${id}-enabled`}
          label={t.enabled}
          checked={rule.enabled}
          onChange={(v) => update({ ...rule, enabled: v })}
        />
      </div>
      <Choice
        id={`${id}-event`}
        label={t.event}
        value={rule.event}
        error={errors[`${path}.event`]}
        options={EVENTS.map((e) => ({ value: e, label: eventLabel(t, e) }))}
        onChange={(v) => update({ ...rule, event: v })}
      />
      <h2 class="rule-part">{t.conditions}</h2>
      <ConditionRows
        id={`${id}-c`}
        conditions={rule.conditions}
        path={`${path}.conditions`}
        errors={errors}
        onChange={(conditions) => update({ ...rule, conditions })}
      />
      <h2 class="rule-part">{t.actions}</h2>
      <ActionRows
        id={`${id}-a`}
        actions={rule.actions}
        path={`${path}.actions`}
        errors={errors}
        onChange={(actions) => update({ ...rule, actions })}
      />
    </fieldset>
  );
}

/** The value a field is compared with: picked where the settings list them, typed otherwise. */
function useValueChoices(): (field: Condition['field']) => Option[] | null {
  const s = useStore();
  const t = useStrings(ruleStrings);
  return (field) => {
    const meta = s.meta.value;
    if (field === 'priority')
      return (meta?.priorities ?? (['low', 'normal', 'high', 'urgent'] as const)).map((p) => ({
        value: p,
        label: s.t.value[`prio_${p}`],
      }));
    if (field === 'status') return (meta?.statuses ?? []).map((x) => ({ value: x.id, label: x.name }));
    if (field === 'category')
      return [
        { value: '', label: t.noCategory },
        ...(meta?.categories ?? []).map((c) => ({ value: c.id, label: c.name })),
      ];
    if (field === 'from_customer')
      return [
        { value: 'true', label: t.yes },
        { value: 'false', label: t.no },
      ];
    return null;
  };
}

function ConditionRows(props: {
  id: string;
  conditions: Condition[];
  onChange: (next: Condition[]) => void;
  errors: Record<string, string>;
  path: string;
}) {
  const t = useStrings(ruleStrings);
  const ts = useStrings(settingsStrings);
  const choices = useValueChoices();
  const { conditions, onChange } = props;
  const set = (i: number, next: Condition) => onChange(conditions.map((c, j) => (j === i ? next : c)));
  return (
    <div class="rule-rows">
      {!conditions.length && <p class="hint">{t.conditionsNone}</p>}
      {conditions.map((c, i) => {
        const id = `${props.id}-${i}`;
        const options = choices(c.field);
        // A value picked from a list is compared whole; text may also be compared in part.
        const ops = options ? OPS.filter((o) => o === 'equals' || o === 'not_equals') : OPS;
        const err = props.errors[`${props.path}.${i}.value`];
        const n = i + 1;
        return (
          <div class="rule-row">
            <select
              aria-label={fmt(t.conditionField, { n })}
              value={c.field}
              onChange={(e) => {
                const field = e.currentTarget.value as Condition['field'];
                const next = choices(field);
                set(i, {
                  field,
                  op: next && !['equals', 'not_equals'].includes(c.op) ? 'equals' : c.op,
                  value: next ? (next[0]?.value ?? '') : '',
                });
              }}
            >
              {FIELDS.map((f) => (
                <option value={f}>{t[`field_${f}`]}</option>
              ))}
            </select>
            <select
              aria-label={fmt(t.conditionOp, { n })}
              value={c.op}
              onChange={(e) => set(i, { ...c, op: e.currentTarget.value as Condition['op'] })}
            >
              {ops.map((o) => (
                <option value={o}>{t[`op_${o}`]}</option>
              ))}
            </select>
            {options ? (
              <select
                id={`${id}-value`}
                aria-label={fmt(t.conditionValue, { n })}
                value={c.value}
                aria-invalid={err ? 'true' : undefined}
                onChange={(e) => set(i, { ...c, value: e.currentTarget.value })}
              >
                {(options.some((o) => o.value === c.value)
                  ? options
                  : [{ value: c.value, label: c.value }, ...options]
                ).map((o) => (
                  <option value={o.value}>{o.label}</option>
                ))}
              </select>
            ) : (
              <input
                id={`${id}-value`}
                aria-label={fmt(t.conditionValue, { n })}
                value={c.value}
                aria-invalid={err ? 'true' : undefined}
                aria-describedby={err ? `${id}-err` : undefined}
                onInput={(e) => set(i, { ...c, value: e.currentTarget.value })}
              />
            )}
            <button
              type="button"
              class="btn small ghost danger"
              aria-label={fmt(t.removeCondition, { n })}
              onClick={() => onChange(conditions.filter((_, j) => j !== i))}
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
      <button
        type="button"
        class="btn small"
        onClick={() => onChange([...conditions, { field: 'subject', op: 'contains', value: '' }])}
      >
        {t.addCondition}
      </button>
    </div>
  );
}
