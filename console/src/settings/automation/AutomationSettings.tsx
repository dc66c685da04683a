import type { Action } from '@ticketing/server/model';
import { useEffect, useState } from 'preact/hooks';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ListRows, NumberInput, SettingsForm, TextArea, TextInput, Toggle } from '../kit/controls.js';
import { ActionRows } from '../rules/ActionRows.js';
import '../rules/rules.css';
import { fmt } from '../rules/strings.js';
import { asHours } from '../sla/asHours.js';
import { slaStrings } from '../sla/strings.js';
import { Tabs } from '../sla/Tabs.js';
import { useResource } from '../kit/useResource.js';
import './automation.css';
import { automationStrings } from './strings.js';

/** `/admin` r=escalation, autoreply, autoclose: docs/api.md "/admin". Emptied number boxes are null until refused. */
interface Escalation {
  id: string;
  after_minutes: number | null;
  when: 'no_first_response' | 'unresolved';
  actions: Action[];
}
interface Autoreply {
  enabled: boolean;
  subject: string;
  message: string;
  outside_hours_message: string | null;
}
interface Autoclose {
  enabled: boolean;
  after_days: number | null;
  statuses: string[];
}

const WHEN = ['no_first_response', 'unresolved'] as const;

const freeId = (list: Escalation[]) => {
  let n = list.length + 1;
  while (list.some((x) => x.id === `escalation-${n}`)) n++;
  return `escalation-${n}`;
};

/** Escalation, autoreply and autoclose: three resources, each saved on its own, one tab each. */
export function AutomationSettings() {
  const t = useStrings(automationStrings);
  const escalation = useResource<Escalation[]>('escalation', { list: true });
  const autoreply = useResource<Autoreply>('autoreply');
  const autoclose = useResource<Autoclose>('autoclose');
  return (
    <Tabs
      label={t.tabs}
      unsaved={t.unsaved}
      tabs={[
        { id: 'escalation', label: t.escalationTab, dirty: escalation.dirty },
        { id: 'autoreply', label: t.autoreplyTab, dirty: autoreply.dirty },
        { id: 'autoclose', label: t.autocloseTab, dirty: autoclose.dirty },
      ]}
    >
      {(tab) =>
        tab === 'escalation' ? (
          <SettingsForm title={t.escalationTitle} intro={t.escalationIntro} resource={escalation}>
            {(list, set) => <EscalationFields list={list} set={set} errors={escalation.errors} />}
          </SettingsForm>
        ) : tab === 'autoreply' ? (
          <SettingsForm
            title={t.autoreplyTitle}
            intro={t.autoreplyIntro}
            resource={autoreply}
            aside={(a) => <AutoreplyPreview autoreply={a} />}
          >
            {(a, set) => <AutoreplyFields autoreply={a} set={set} errors={autoreply.errors} />}
          </SettingsForm>
        ) : (
          <SettingsForm title={t.autocloseTitle} intro={t.autocloseIntro} resource={autoclose}>
            {(a, set) => <AutocloseFields autoclose={a} set={set} errors={autoclose.errors} />}
          </SettingsForm>
        )
      }
    </Tabs>
  );
}

function EscalationFields(props: {
  list: Escalation[];
  set: (v: Escalation[]) => void;
  errors: Record<string, string>;
}) {
  const t = useStrings(automationStrings);
  const ts = useStrings(slaStrings);
  const { errors } = props;
  return (
    <>
      {errors.escalation && <p class="err">{errors.escalation}</p>}
      <ListRows
        items={props.list}
        onChange={props.set}
        name={(_, i) => fmt(t.escalationName, { n: i + 1 })}
        addLabel={t.addEscalation}
        newItem={(): Escalation => ({
          id: freeId(props.list),
          after_minutes: 240,
          when: 'no_first_response',
          actions: [{ type: 'set_priority', value: 'high' }],
        })}
        render={(e, i, update) => {
          const id = `esc-${i}`;
          const path = `escalation.${i}`;
          return (
            <fieldset class="rule" aria-label={fmt(t.escalationName, { n: i + 1 })}>
              <div class="rule-head">
                <NumberInput
                  id={`${id}-after`}
                  label={t.after}
                  hint={[asHours(ts, e.after_minutes), t.afterHint].filter(Boolean).join(' · ')}
                  min={1}
                  value={e.after_minutes}
                  error={errors[`${path}.after_minutes`] ?? errors[`${path}.id`]}
                  onChange={(v) => update({ ...e, after_minutes: v })}
                />
                <Choice
                  id={`${id}-when`}
                  label={t.when}
                  value={e.when}
                  error={errors[`${path}.when`]}
                  options={WHEN.map((w) => ({ value: w, label: t[`when_${w}`] }))}
                  onChange={(v) => update({ ...e, when: v })}
                />
              </div>
              <h2 class="rule-part">{t.then}</h2>
              <ActionRows
                id={`${id}-a`}
                actions={e.actions}
                path={`${path}.actions`}
                errors={errors}
                onChange={(actions) => update({ ...e, actions })}
              />
            </fieldset>
          );
        }}
      />
    </>
  );
}

function AutoreplyFields(props: { autoreply: Autoreply; set: (v: Autoreply) => void; errors: Record<string, string> }) {
  const t = useStrings(automationStrings);
  const { autoreply: a, set, errors } = props;
  return (
    <>
      <Toggle
        id="autoreply-enabled"
        label={t.autoreplyEnabled}
        checked={a.enabled}
        onChange={(v) => set({ ...a, enabled: v })}
      />
      <TextInput
        id="autoreply-subject"
        label={t.subject}
        value={a.subject}
        error={errors.subject}
        onChange={(v) => set({ ...a, subject: v })}
      />
      <TextArea
        id="autoreply-message"
        label={t.message}
        hint={t.placeholders}
        rows={6}
        value={a.message}
        error={errors.message}
        onChange={(v) => set({ ...a, message: v })}
      />
      <TextArea
        id="autoreply-outside"
        label={t.outside}
        hint={t.outsideHint}
        rows={4}
        value={a.outside_hours_message}
        error={errors.outside_hours_message}
        onChange={(v) => set({ ...a, outside_hours_message: v.trim() ? v : null })}
      />
    </>
  );
}

/** The placeholders the server fills in (server/src/mail/templates.ts, fillPlaceholders). */
const fill = (text: string, v: { name: string; subject: string; id: string; number: number }) =>
  text.replace(/\{\{\s*(name|subject|ticket_id|number)\s*\}\}/g, (_, k: string) =>
    k === 'name' ? v.name : k === 'subject' ? v.subject : k === 'number' ? `#${v.number}` : v.id,
  );

/** The autoreply as a customer would get it: for the newest ticket, or an example one when there is none. */
function AutoreplyPreview({ autoreply: a }: { autoreply: Autoreply }) {
  const s = useStore();
  const t = useStrings(automationStrings);
  const [sample, setSample] = useState({
    name: t.sampleName,
    subject: t.sampleSubject,
    id: 'tkt_8fJ2kQ9xLmP4rT6wZ1cV',
    number: 1042,
  });
  useEffect(() => {
    s.api.list({ limit: 1 }).then(
      (l) =>
        l.data[0] &&
        setSample({ name: l.data[0].name, subject: l.data[0].subject, id: l.data[0].id, number: l.data[0].number }),
      () => undefined,
    );
  }, []);
  const mail = (title: string | null, body: string) => (
    <div class="mail-preview">
      {title && <h3>{title}</h3>}
      {/* The server puts the ticket's number before every subject (mail/templates.ts). */}
      <p class="mail-subject">{`[#${sample.number}] ${fill(a.subject, sample)}`}</p>
      <p class="mail-body">{fill(body, sample)}</p>
    </div>
  );
  return (
    <section class="autoreply-preview" aria-labelledby="autoreply-preview-title">
      <h2 id="autoreply-preview-title">{t.preview}</h2>
      <p class="hint">{fmt(t.previewFor, { subject: sample.subject, name: sample.name })}</p>
      {mail(null, a.message)}
      {a.outside_hours_message && mail(t.previewOutside, a.outside_hours_message)}
    </section>
  );
}

function AutocloseFields(props: { autoclose: Autoclose; set: (v: Autoclose) => void; errors: Record<string, string> }) {
  const s = useStore();
  const t = useStrings(automationStrings);
  const { autoclose: a, set, errors } = props;
  const statuses = s.meta.value?.statuses ?? [];
  const chosen = a.statuses.map((id) => s.statusName(id));
  return (
    <>
      <Toggle
        id="autoclose-enabled"
        label={t.autocloseEnabled}
        checked={a.enabled}
        onChange={(v) => set({ ...a, enabled: v })}
      />
      <NumberInput
        id="autoclose-days"
        label={t.afterDays}
        min={1}
        max={365}
        value={a.after_days}
        error={errors.after_days}
        onChange={(v) => set({ ...a, after_days: v })}
      />
      <fieldset class="autoclose-statuses" aria-describedby={errors.statuses ? 'autoclose-statuses-err' : undefined}>
        <legend>{t.statuses}</legend>
        {/* Statuses that already close a ticket are not offered: closing them again does nothing. */}
        {[
          ...statuses.filter((x) => !x.closed),
          ...a.statuses.filter((id) => !statuses.some((x) => x.id === id && !x.closed)).map((id) => ({ id, name: id })),
        ].map((x) => (
          <label class="check-row">
            <input
              type="checkbox"
              checked={a.statuses.includes(x.id)}
              onChange={(e) =>
                set({
                  ...a,
                  statuses: e.currentTarget.checked ? [...a.statuses, x.id] : a.statuses.filter((id) => id !== x.id),
                })
              }
            />
            {x.name}
          </label>
        ))}
        {errors.statuses && (
          <p class="err" id="autoclose-statuses-err">
            {errors.statuses}
          </p>
        )}
      </fieldset>
      <p class="autoclose-summary" aria-live="polite">
        {fmt(t.autocloseSummary, { statuses: chosen.length ? chosen.join(t.or) : t.none, days: a.after_days ?? '…' })}
      </p>
    </>
  );
}
