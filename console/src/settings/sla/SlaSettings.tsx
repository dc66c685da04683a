import type { BusinessHours, Priority } from '@ticketing/server/model';
import { useStore, useStrings } from '../../state/context.js';
import { SettingsForm, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import { fmt } from '../rules/strings.js';
import { asHours } from './asHours.js';
import { HoursForm } from './HoursForm.js';
import { OpenNow } from './OpenNow.js';
import { slaStrings } from './strings.js';
import { Tabs } from './Tabs.js';
import './sla.css';

/** `/admin r=sla`: docs/api.md "/admin", `sla`. A box emptied is null until the server refuses it. */
interface Sla {
  enabled: boolean;
  business_hours_only: boolean;
  first_response_minutes: Record<Priority, number | null>;
  resolution_minutes: Record<Priority, number | null>;
}

const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const satisfies readonly Priority[];

/** SLA targets per priority, and the business hours they may count in, each saved on its own. */
export function SlaSettings() {
  const t = useStrings(slaStrings);
  const sla = useResource<Sla>('sla');
  const hours = useResource<BusinessHours>('business_hours');
  return (
    <Tabs
      label={t.tabs}
      unsaved={t.unsaved}
      tabs={[
        { id: 'sla', label: t.slaTab, dirty: sla.dirty },
        { id: 'hours', label: t.hoursTab, dirty: hours.dirty },
      ]}
    >
      {(tab) =>
        tab === 'sla' ? (
          <SettingsForm title={t.slaTitle} intro={t.slaIntro} resource={sla}>
            {(v, set) => <SlaFields sla={v} set={set} errors={sla.errors} />}
          </SettingsForm>
        ) : (
          <SettingsForm
            title={t.hoursTitle}
            intro={t.hoursIntro}
            resource={hours}
            aside={(draft) => <OpenNow draft={draft} saved={hours.saved} dirty={hours.dirty} />}
          >
            {(v, set) => <HoursForm hours={v} set={set} errors={hours.errors} />}
          </SettingsForm>
        )
      }
    </Tabs>
  );
}

function SlaFields({ sla, set, errors }: { sla: Sla; set: (v: Sla) => void; errors: Record<string, string> }) {
  const t = useStrings(slaStrings);
  const s = useStore();
  const prio = (p: Priority) => s.t.value[`prio_${p}`];
  const columns = [
    ['first_response_minutes', t.firstResponse],
    ['resolution_minutes', t.resolution],
  ] as const;
  return (
    <>
      <Toggle id="sla-enabled" label={t.enabled} checked={sla.enabled} onChange={(v) => set({ ...sla, enabled: v })} />
      <Toggle
        id="sla-business"
        label={t.businessOnly}
        hint={t.businessOnlyHint}
        checked={sla.business_hours_only}
        onChange={(v) => set({ ...sla, business_hours_only: v })}
      />
      <table class="sla-table">
        <thead>
          <tr>
            <th scope="col">{t.priority}</th>
            {columns.map(([, label]) => (
              <th scope="col">{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {PRIORITIES.map((p) => (
            <tr>
              <th scope="row">{prio(p)}</th>
              {columns.map(([key, label]) => {
                const id = `sla-${key}-${p}`;
                const err = errors[`${key}.${p}`];
                const value = sla[key][p];
                return (
                  <td>
                    <span class="sla-cell">
                      <input
                        id={id}
                        type="number"
                        inputMode="numeric"
                        min={1}
                        aria-label={fmt(t.minutesOf, { what: label, priority: prio(p) })}
                        value={value ?? ''}
                        aria-invalid={err ? 'true' : undefined}
                        aria-describedby={`${id}-h${err ? ` ${id}-err` : ''}`}
                        onInput={(e) => {
                          const raw = e.currentTarget.value;
                          set({ ...sla, [key]: { ...sla[key], [p]: raw === '' ? null : Math.trunc(Number(raw)) } });
                        }}
                      />
                      <span class="hint" aria-hidden="true">
                        {t.minutes}
                      </span>
                    </span>
                    <span class="hint" id={`${id}-h`}>
                      {asHours(t, value)}
                    </span>
                    {err && (
                      <p class="err" id={`${id}-err`}>
                        {err}
                      </p>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
