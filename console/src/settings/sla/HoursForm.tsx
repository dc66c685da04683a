import type { BusinessHours } from '@ticketing/server/model';
import { useStrings } from '../../state/context.js';
import { Choice } from '../kit/controls.js';
import { settingsStrings } from '../kit/strings.js';
import { fmt } from '../rules/strings.js';
import { slaStrings } from './strings.js';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Day = (typeof DAYS)[number];

/** Every IANA zone the browser knows, and the stored one even if it does not (so it is not lost). */
function zones(current: string): string[] {
  const all = Intl.supportedValuesOf('timeZone');
  return all.includes(current) ? all : [current, ...all];
}

/** `/admin r=business_hours`: the time zone, each weekday's opening hours, holidays. */
export function HoursForm(props: {
  hours: BusinessHours;
  set: (next: BusinessHours) => void;
  errors: Record<string, string>;
}) {
  const t = useStrings(slaStrings);
  const ts = useStrings(settingsStrings);
  const { hours: h, set, errors } = props;
  const setDay = (d: Day, intervals: BusinessHours['days'][Day]) => set({ ...h, days: { ...h.days, [d]: intervals } });
  return (
    <>
      <Choice
        id="hours-timezone"
        label={t.timezone}
        value={h.timezone}
        error={errors.timezone}
        options={zones(h.timezone).map((z) => ({ value: z, label: z.replace(/_/g, ' ') }))}
        onChange={(v) => set({ ...h, timezone: v })}
      />
      <fieldset class="hours-days">
        <legend>{t.days}</legend>
        {DAYS.map((d) => {
          const day = t[d];
          return (
            <div class="hours-day">
              <span class="hours-day-name" id={`hours-${d}`}>
                {day}
              </span>
              <div class="hours-intervals">
                {!h.days[d].length && <span class="hint">{t.closed}</span>}
                {h.days[d].map((iv, i) => {
                  const n = i + 1;
                  const id = `hours-${d}-${i}`;
                  const err = errors[`days.${d}.${i}.open`] ?? errors[`days.${d}.${i}.close`];
                  const put = (key: 'open' | 'close', v: string) =>
                    setDay(
                      d,
                      h.days[d].map((x, j) => (j === i ? { ...x, [key]: v } : x)),
                    );
                  return (
                    <div class="hours-interval">
                      <input
                        type="time"
                        id={`${id}-open`}
                        aria-label={fmt(t.intervalOf, { day, n, what: t.open })}
                        value={iv.open}
                        aria-invalid={errors[`days.${d}.${i}.open`] ? 'true' : undefined}
                        aria-describedby={err ? `${id}-err` : undefined}
                        onInput={(e) => put('open', e.currentTarget.value)}
                      />
                      <span aria-hidden="true">–</span>
                      <input
                        type="time"
                        id={`${id}-close`}
                        aria-label={fmt(t.intervalOf, { day, n, what: t.close })}
                        value={iv.close}
                        aria-invalid={errors[`days.${d}.${i}.close`] ? 'true' : undefined}
                        aria-describedby={err ? `${id}-err` : undefined}
                        onInput={(e) => put('close', e.currentTarget.value)}
                      />
                      <button
                        type="button"
                        class="btn small ghost danger"
                        aria-label={fmt(t.removeInterval, { day, n })}
                        onClick={() =>
                          setDay(
                            d,
                            h.days[d].filter((_, j) => j !== i),
                          )
                        }
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
                {errors[`days.${d}`] && <p class="err">{errors[`days.${d}`]}</p>}
                <button
                  type="button"
                  class="btn small ghost add-hours"
                  aria-label={fmt(t.addIntervalTo, { day })}
                  onClick={() => {
                    const last = h.days[d][h.days[d].length - 1];
                    // A second interval starts where the last one ends (a split day: morning and afternoon).
                    const next = last
                      ? { open: last.close, close: last.close < '20:00' ? '20:00' : '23:59' }
                      : { open: '09:00', close: '17:00' };
                    setDay(d, [...h.days[d], next]);
                  }}
                >
                  {t.addInterval}
                </button>
              </div>
            </div>
          );
        })}
        <button
          type="button"
          class="btn small ghost"
          onClick={() =>
            set({ ...h, days: { ...h.days, tue: h.days.mon, wed: h.days.mon, thu: h.days.mon, fri: h.days.mon } })
          }
        >
          {t.copyMonday}
        </button>
      </fieldset>
      <fieldset class="hours-holidays">
        <legend>{t.holidays}</legend>
        <p class="hint">{t.holidaysHint}</p>
        {h.holidays.map((date, i) => {
          const n = i + 1;
          const err = errors[`holidays.${i}`];
          return (
            <div class="hours-interval">
              <input
                type="date"
                id={`hours-holiday-${i}`}
                aria-label={fmt(t.holiday, { n })}
                value={date}
                aria-invalid={err ? 'true' : undefined}
                aria-describedby={err ? `hours-holiday-${i}-err` : undefined}
                onInput={(e) =>
                  set({ ...h, holidays: h.holidays.map((x, j) => (j === i ? e.currentTarget.value : x)) })
                }
              />
              <button
                type="button"
                class="btn small ghost danger"
                aria-label={fmt(t.removeHoliday, { n })}
                onClick={() => set({ ...h, holidays: h.holidays.filter((_, j) => j !== i) })}
              >
                {ts.remove}
              </button>
              {err && (
                <p class="err" id={`hours-holiday-${i}-err`}>
                  {err}
                </p>
              )}
            </div>
          );
        })}
        {errors.holidays && <p class="err">{errors.holidays}</p>}
        <button
          type="button"
          class="btn small"
          onClick={() => set({ ...h, holidays: [...h.holidays, new Date().toISOString().slice(0, 10)] })}
        >
          {t.addHoliday}
        </button>
      </fieldset>
    </>
  );
}
