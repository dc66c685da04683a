import type { ConfigData } from '../admin/schema.js';

export type BusinessHours = ConfigData['business_hours'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const MINUTE = 60_000;

interface LocalTime {
  date: string; // YYYY-MM-DD in the zone
  weekday: (typeof DAYS)[number];
  minutes: number; // since local midnight
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock date, weekday and minute of `at` in `timeZone`, through Intl (DST included). */
export function localTime(at: Date, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: parts.weekday!.toLowerCase().slice(0, 3) as LocalTime['weekday'],
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Hours are "not set" when no day has an interval: then support counts as always open. */
export const hoursConfigured = (h: BusinessHours) => DAYS.some((d) => h.days[d].length > 0);

function isOpenAt(h: BusinessHours, at: Date): boolean {
  const local = localTime(at, h.timezone);
  if (h.holidays.includes(local.date)) return false;
  return h.days[local.weekday].some((i) => local.minutes >= toMinutes(i.open) && local.minutes < toMinutes(i.close));
}

/**
 * Whether support is open now and, if not, when it opens next: the first interval opening on one of
 * the next 31 local days that is later than now and not on a holiday.
 */
export function openState(h: BusinessHours, now: Date): { open_now: boolean; next_open_at: string | null } {
  if (!hoursConfigured(h)) return { open_now: true, next_open_at: null };
  if (isOpenAt(h, now)) return { open_now: true, next_open_at: null };
  const start = Math.floor(now.getTime() / MINUTE) * MINUTE;
  for (let day = 0; day <= 31; day++) {
    const probe = new Date(start + day * 24 * 60 * MINUTE);
    const local = localTime(probe, h.timezone);
    const midnight = probe.getTime() - local.minutes * MINUTE; // local midnight, up to a DST hour off
    for (const i of [...h.days[local.weekday]].sort((a, b) => toMinutes(a.open) - toMinutes(b.open))) {
      const candidate = exactLocal(midnight + toMinutes(i.open) * MINUTE, toMinutes(i.open), h.timezone);
      if (candidate > now.getTime() && isOpenAt(h, new Date(candidate)))
        return { open_now: false, next_open_at: new Date(candidate).toISOString() };
    }
  }
  return { open_now: false, next_open_at: null };
}

/** Moves `guess` by the DST difference until its local minute of day is `minutes`. */
export function exactLocal(guess: number, minutes: number, timeZone: string): number {
  let t = guess;
  for (let k = 0; k < 3; k++) {
    const diff = minutes - localTime(new Date(t), timeZone).minutes;
    if (diff === 0) break;
    t += (Math.abs(diff) > 12 * 60 ? diff - Math.sign(diff) * 24 * 60 : diff) * MINUTE;
  }
  return t;
}
