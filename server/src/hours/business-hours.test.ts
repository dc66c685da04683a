import { describe, expect, it } from 'vitest';
import { BusinessHoursSchema } from '../model/index.js';
import { IANAZone } from 'luxon';
import { addBusinessMinutes, businessClock, businessMinutesBetween, openState } from './business-hours.js';

const hours = (over: object) => BusinessHoursSchema.parse(over);
const weekdays = {
  mon: [{ open: '09:00', close: '17:00' }],
  tue: [{ open: '09:00', close: '17:00' }],
  wed: [
    { open: '09:00', close: '12:00' },
    { open: '13:00', close: '17:00' },
  ],
  thu: [{ open: '09:00', close: '17:00' }],
  fri: [{ open: '09:00', close: '17:00' }],
};

describe('openState', () => {
  it('counts as always open when no hours are set', () => {
    expect(openState(hours({}), new Date('2026-11-22T03:00:00Z'))).toEqual({ open_now: true, next_open_at: null });
  });

  it('works in the configured time zone', () => {
    const berlin = hours({ timezone: 'Europe/Berlin', days: weekdays });
    // Monday 2026-11-23 08:30 UTC = 09:30 in Berlin (CET, UTC+1)
    expect(openState(berlin, new Date('2026-11-23T08:30:00Z')).open_now).toBe(true);
    // Monday 07:59 UTC = 08:59 Berlin: closed, opens at 08:00 UTC
    expect(openState(berlin, new Date('2026-11-23T07:59:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-23T08:00:00.000Z',
    });
    // Wednesday lunch break 12:30 Berlin
    expect(openState(berlin, new Date('2026-11-25T11:30:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-25T12:00:00.000Z',
    });
    // Friday 17:00 Berlin: closed until Monday 09:00 Berlin
    expect(openState(berlin, new Date('2026-11-27T16:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-30T08:00:00.000Z',
    });
  });

  it('skips holidays', () => {
    const h = hours({ timezone: 'America/New_York', days: weekdays, holidays: ['2026-11-26'] });
    // Thursday 2026-11-26 (Thanksgiving) 10:00 New York = 15:00 UTC
    expect(openState(h, new Date('2026-11-26T15:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: '2026-11-27T14:00:00.000Z',
    });
  });

  it('follows daylight saving time', () => {
    const h = hours({ timezone: 'Europe/Berlin', days: { mon: [{ open: '09:00', close: '17:00' }] } });
    // Sunday 2026-03-29 is the switch to CEST (UTC+2): Monday 09:00 is 07:00 UTC.
    expect(openState(h, new Date('2026-03-28T12:00:00Z')).next_open_at).toBe('2026-03-30T07:00:00.000Z');
    // In winter it is 08:00 UTC.
    expect(openState(h, new Date('2026-11-28T12:00:00Z')).next_open_at).toBe('2026-11-30T08:00:00.000Z');
  });

  it('says nothing about a next opening when every day in the next month is a holiday', () => {
    const all = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 10, 22 + i)).toISOString().slice(0, 10));
    expect(openState(hours({ days: weekdays, holidays: all }), new Date('2026-11-22T03:00:00Z'))).toEqual({
      open_now: false,
      next_open_at: null,
    });
  });
});

// The oracle: is support open at instant t, by the wall clock the platform's Intl gives for the zone
// (an independent reading of the IANA database, instant by instant, with no arithmetic of ours).
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const wallClocks = new Map<string, Intl.DateTimeFormat>();
function openByIntl(h: ReturnType<typeof hours>, t: number): boolean {
  let f = wallClocks.get(h.timezone);
  if (!f) {
    const options = { timeZone: h.timezone, hourCycle: 'h23', weekday: 'short' } as const;
    f = new Intl.DateTimeFormat('en-US', {
      ...options,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    wallClocks.set(h.timezone, f);
  }
  const p = Object.fromEntries(f.formatToParts(t).map((x) => [x.type, x.value]));
  if (h.holidays.includes(`${p.year}-${p.month}-${p.day}`)) return false;
  const minutes = Number(p.hour) * 60 + Number(p.minute);
  const toMin = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
  const day = p.weekday!.toLowerCase().slice(0, 3) as (typeof WEEKDAYS)[number];
  return h.days[day].some((i) => toMin(i.open) <= minutes && minutes < toMin(i.close));
}
// Offsets are multiples of 15 minutes and every boundary below is on a quarter hour, so stepping a
// quarter hour at a time visits every change of "open".
const QUARTER = 15 * 60_000;
function addByIntl(h: ReturnType<typeof hours>, start: number, minutes: number): number {
  let left = minutes / 15;
  for (let t = start; ; t += QUARTER) if (openByIntl(h, t) && --left === 0) return t + QUARTER;
}
function nextOpenByIntl(h: ReturnType<typeof hours>, now: number): number | null {
  for (let t = now; t < now + 32 * 24 * 3_600_000; t += QUARTER) if (openByIntl(h, t)) return t;
  return null;
}

/**
 * Every change of UTC offset in `zone` between the two instants, through luxon: sampled weekly
 * (Morocco suspends its offset for Ramadan, about a month), narrowed to the minute.
 */
function transitions(zone: string, from: number, to: number): number[] {
  const z = IANAZone.create(zone);
  const found: number[] = [];
  const STEP = 7 * 24 * 3_600_000;
  for (let t = from; t < to; t += STEP) {
    if (z.offset(t) === z.offset(t + STEP)) continue;
    let lo = t;
    let hi = t + STEP;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (z.offset(mid) === z.offset(lo)) lo = mid;
      else hi = mid;
    }
    found.push(hi);
  }
  return found;
}

describe('business hours across every DST transition of every IANA zone, 2025-2028', () => {
  const every = (intervals: { open: string; close: string }[]) =>
    Object.fromEntries(WEEKDAYS.map((d) => [d, intervals]));
  // Boundaries at and around midnight and the hours clocks usually change at.
  const templates = [
    every([{ open: '00:00', close: '24:00' }]),
    every([
      { open: '00:00', close: '09:00' },
      { open: '17:00', close: '24:00' },
    ]),
    every([
      { open: '00:30', close: '02:30' },
      { open: '03:00', close: '12:00' },
    ]),
    every([
      { open: '01:00', close: '03:00' },
      { open: '23:00', close: '24:00' },
    ]),
    every([{ open: '09:00', close: '17:00' }]),
  ];
  const zones = Intl.supportedValuesOf('timeZone');
  const cases = zones.flatMap((zone) =>
    transitions(zone, Date.UTC(2025, 0, 1), Date.UTC(2029, 0, 1)).map((at) => ({ zone, at })),
  );

  it('finds the transitions (including zones whose midnight is skipped)', () => {
    expect(cases.length).toBeGreaterThan(500);
    expect(cases.some((c) => c.zone === 'America/Santiago')).toBe(true);
    expect(cases.some((c) => c.zone === 'America/Havana')).toBe(true);
  });

  it('adds business minutes and finds the next opening exactly as the wall clock reads', () => {
    // One start and length per transition, rotating (5 templates and 3 starts: every pairing recurs).
    const starts = [
      [3 * 60, 240],
      [30, 45],
      [-60, 300],
    ] as const;
    let checked = 0;
    cases.forEach(({ zone, at }, n) => {
      const h = hours({ timezone: zone, days: templates[n % templates.length] });
      const [before, minutes] = starts[n % starts.length]!;
      const start = Math.floor((at - before * 60_000) / QUARTER) * QUARTER;
      const expected = addByIntl(h, start, minutes);
      const got = addBusinessMinutes(h, new Date(start), minutes).getTime();
      if (got !== expected)
        throw new Error(`${zone} at ${new Date(start).toISOString()} + ${minutes}: ${new Date(got).toISOString()}`);
      const state = openState(h, new Date(start));
      const next = nextOpenByIntl(h, start);
      expect(state.open_now, `${zone} ${new Date(start).toISOString()}`).toBe(next === start);
      if (!state.open_now) expect(state.next_open_at).toBe(next === null ? null : new Date(next).toISOString());
      // The open time between the start and that deadline is the minutes added: the two agree.
      expect(businessMinutesBetween(h, new Date(start), new Date(got)), `${zone} ${start}`).toBe(minutes);
      checked++;
    });
    expect(checked).toBe(cases.length);
  });

  it('counts a day whose midnight does not exist from its first real instant (America/Santiago)', () => {
    // Chile moves its clocks from 00:00 to 01:00 on Sunday 2026-09-06: that day starts at 01:00 local.
    const h = hours({ timezone: 'America/Santiago', days: { sun: [{ open: '00:00', close: '09:00' }] } });
    const saturdayEvening = new Date('2026-09-05T23:00:00-04:00');
    expect(openState(h, saturdayEvening)).toEqual({ open_now: false, next_open_at: '2026-09-06T04:00:00.000Z' });
    // 60 open minutes from the first instant of Sunday: 02:00 local (UTC-3).
    expect(addBusinessMinutes(h, saturdayEvening, 60).toISOString()).toBe('2026-09-06T05:00:00.000Z');
  });
});

describe('businessMinutesBetween', () => {
  const berlin = hours({ timezone: 'Europe/Berlin', days: weekdays, holidays: ['2026-11-26'] });

  it('counts every minute when no hours are set, and nothing backwards', () => {
    const h = hours({});
    expect(businessMinutesBetween(h, new Date('2026-11-22T03:00:00Z'), new Date('2026-11-22T04:30:00Z'))).toBe(90);
    expect(businessMinutesBetween(h, new Date('2026-11-22T04:30:00Z'), new Date('2026-11-22T03:00:00Z'))).toBe(0);
  });

  it('counts only open time: evenings, lunch breaks, weekends and holidays are left out', () => {
    const between = (a: string, b: string) => businessMinutesBetween(berlin, new Date(a), new Date(b));
    // Monday 16:30 Berlin to Tuesday 09:30 Berlin: 30 + 30 minutes.
    expect(between('2026-11-23T15:30:00Z', '2026-11-24T08:30:00Z')).toBe(60);
    // Wednesday 11:00 to 14:00 Berlin, lunch 12-13 closed: 120 minutes.
    expect(between('2026-11-25T10:00:00Z', '2026-11-25T13:00:00Z')).toBe(120);
    // Wednesday 16:00 Berlin to Friday 10:00 Berlin, Thursday a holiday: 60 + 60.
    expect(between('2026-11-25T15:00:00Z', '2026-11-27T09:00:00Z')).toBe(120);
    // Friday 16:00 Berlin to Monday 09:15 Berlin: 60 + 15.
    expect(between('2026-11-27T15:00:00Z', '2026-11-30T08:15:00Z')).toBe(75);
    // Saturday to Sunday: closed all along.
    expect(between('2026-11-28T08:00:00Z', '2026-11-29T20:00:00Z')).toBe(0);
  });
});

describe('businessClock (a report asking for many tickets at once)', () => {
  it("gives businessMinutesBetween's and addBusinessMinutes' answers exactly, in any order of asking", () => {
    // A fixed sequence of pseudo-random numbers: the same instants every run.
    let x = 7;
    const next = () => (x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const start = Date.parse('2025-01-01T00:00:00Z');
    const span = 3 * 365 * 86_400_000;
    const setups = [
      hours({ timezone: 'Europe/Berlin', days: weekdays, holidays: ['2025-12-24', '2025-12-25', '2026-01-01'] }),
      // Midnight skipped and repeated (transitions at 24:00), a day open round the clock.
      hours({
        timezone: 'America/Santiago',
        days: { ...weekdays, sat: [{ open: '00:00', close: '23:59' }], sun: [{ open: '22:30', close: '23:30' }] },
      }),
      hours({ timezone: 'Australia/Lord_Howe', days: { tue: [{ open: '01:00', close: '03:00' }] } }),
      // One hour a week: a year of minutes is never reached, and the walk gives up after 800 days.
      hours({ timezone: 'Asia/Kolkata', days: { mon: [{ open: '10:00', close: '11:00' }] } }),
      hours({}),
    ];
    let asked = 0;
    for (const h of setups) {
      const clock = businessClock(h);
      for (let i = 0; i < 200; i++) {
        const a = start + Math.floor(next() * span);
        const b =
          next() < 0.1 ? a - Math.floor(next() * 86_400_000) : a + Math.floor(next() * next() * 90 * 86_400_000);
        expect(clock.between(a, b) / 60_000, `${h.timezone} ${a} ${b}`).toBe(
          businessMinutesBetween(h, new Date(a), new Date(b)),
        );
        const minutes = [1, 60, 480, 2880, 20_000, 525_600, NaN][Math.floor(next() * 7)]!;
        expect(clock.deadline(a, minutes), `${h.timezone} ${a} +${minutes}`).toBe(
          addBusinessMinutes(h, new Date(a), minutes).getTime(),
        );
        asked++;
      }
    }
    expect(asked).toBe(1000);
  });
});
