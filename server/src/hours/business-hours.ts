import { IANAZone } from 'luxon';
import { WEEKDAYS, type BusinessHours } from '../model/index.js';

export type { BusinessHours };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A stretch of real time, [start, end) in epoch milliseconds. */
export type Span = readonly [start: number, end: number];

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Hours are "not set" when no day has an interval: then support counts as always open. */
const hoursConfigured = (h: BusinessHours) => WEEKDAYS.some((d) => h.days[d].length > 0);

/**
 * Offsets come from luxon (the IANA database through Intl). The one piece of arithmetic done here is
 * wall = instant + offset, which is exact while the offset stays the same; `pieces` finds where it
 * changes, so a day whose midnight does not exist (America/Santiago, America/Havana) or whose 01:00
 * happens twice is handled like any other.
 */
interface Piece {
  start: number;
  end: number;
  offset: number;
}

class Zone {
  private readonly zone: IANAZone;
  private readonly days = new Map<number, Piece[]>();
  constructor(name: string) {
    this.zone = IANAZone.create(name);
  }

  offset(t: number): number {
    return this.zone.offset(t) * MINUTE;
  }

  /** The wall-clock midnight (as a UTC timestamp of the wall time) of the local day that `t` falls on. */
  wallDay(t: number): number {
    const wall = t + this.offset(t);
    return wall - (((wall % DAY) + DAY) % DAY);
  }

  /**
   * Real time split where the offset changes, covering every instant whose wall time lies in the local
   * day starting at wall midnight `day` (offsets are within -12 h and +14 h). Offsets are sampled every
   * 13 hours and a change is narrowed to the millisecond; transitions are never that close together.
   * Kept per day: tickets created the same day ask about the same days.
   */
  pieces(day: number): Piece[] {
    let found = this.days.get(day);
    if (found) return found;
    const from = day - 15 * HOUR;
    const to = day + DAY + 13 * HOUR;
    found = [];
    let start = from;
    let offset = this.offset(from);
    for (let probe = from + 13 * HOUR; ; probe = Math.min(probe + 13 * HOUR, to)) {
      const o = this.offset(probe);
      if (o !== offset) {
        let lo = probe - 13 * HOUR; // offset(lo) === offset, offset(hi) !== offset
        let hi = probe;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (this.offset(mid) === offset) lo = mid;
          else hi = mid;
        }
        found.push({ start, end: hi, offset });
        start = hi;
        offset = o;
      }
      if (probe >= to) break;
    }
    found.push({ start, end: to, offset });
    if (this.days.size >= 1000) this.days.delete(this.days.keys().next().value!);
    this.days.set(day, found);
    return found;
  }
}

const zones = new Map<string, Zone>();
const zoneOf = (name: string) => {
  let z = zones.get(name);
  if (!z) zones.set(name, (z = new Zone(name)));
  return z;
};

/**
 * The real-time spans in which support is open on the local day starting at wall midnight `day`: the
 * instants whose wall-clock time lies inside one of that weekday's intervals, none on a holiday. An
 * interval that falls into a skipped hour is shorter (or empty); one that covers a repeated hour is longer.
 */
function openSpans(h: BusinessHours, zone: Zone, day: number): Span[] {
  const date = new Date(day);
  if (h.holidays.includes(date.toISOString().slice(0, 10))) return [];
  const intervals = h.days[WEEKDAYS[(date.getUTCDay() + 6) % 7]!]; // getUTCDay: Sunday is 0
  if (!intervals.length) return [];
  const pieces = zone.pieces(day);
  const spans: [number, number][] = [];
  for (const i of [...intervals].sort((a, b) => toMinutes(a.open) - toMinutes(b.open))) {
    const wallOpen = day + toMinutes(i.open) * MINUTE;
    const wallClose = day + toMinutes(i.close) * MINUTE;
    for (const p of pieces) {
      const start = Math.max(p.start, wallOpen - p.offset);
      const end = Math.min(p.end, wallClose - p.offset);
      if (start >= end) continue;
      const last = spans[spans.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else spans.push([start, end]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/** Open spans day by day, from the local day before `from`'s (a repeated hour can reach back) onwards. */
function* spansFrom(h: BusinessHours, from: number, days: number): Generator<Span> {
  const zone = zoneOf(h.timezone);
  const first = zone.wallDay(from) - DAY;
  for (let d = 0; d <= days + 1; d++) yield* openSpans(h, zone, first + d * DAY);
}

/**
 * Whether support is open now and, if not, when it opens next: the first opening in the next 31 local
 * days that is later than now.
 */
export function openState(h: BusinessHours, now: Date): { open_now: boolean; next_open_at: string | null } {
  if (!hoursConfigured(h)) return { open_now: true, next_open_at: null };
  const t = now.getTime();
  for (const [start, end] of spansFrom(h, t, 31)) {
    if (start <= t && t < end) return { open_now: true, next_open_at: null };
    if (start > t) return { open_now: false, next_open_at: new Date(start).toISOString() };
  }
  return { open_now: false, next_open_at: null };
}

/**
 * `start` plus `minutes` of open time (real minutes inside the open spans; holidays closed). Without
 * configured hours every minute counts. Gives up after about two years of closed days.
 */
export function addBusinessMinutes(h: BusinessHours, start: Date, minutes: number): Date {
  if (!hoursConfigured(h)) return new Date(start.getTime() + minutes * MINUTE);
  let remaining = minutes * MINUTE;
  let cursor = start.getTime();
  for (const [s, e] of spansFrom(h, cursor, 800)) {
    const from = Math.max(s, cursor);
    if (e <= from) continue;
    if (remaining <= e - from) return new Date(from + remaining);
    remaining -= e - from;
    cursor = e;
  }
  return new Date(cursor);
}

/**
 * The open time between two instants, in minutes (the inverse of addBusinessMinutes: a report's
 * first-response and resolution times when the SLA counts business hours). Without configured hours
 * every minute counts; `end` before `start` is 0.
 */
export function businessMinutesBetween(h: BusinessHours, start: Date, end: Date): number {
  const from = start.getTime();
  const to = end.getTime();
  if (to <= from) return 0;
  if (!hoursConfigured(h)) return (to - from) / MINUTE;
  let open = 0;
  for (const [s, e] of spansFrom(h, from, Math.ceil((to - from) / DAY) + 1)) {
    if (s >= to) break;
    open += Math.max(0, Math.min(e, to) - Math.max(s, from));
  }
  return open / MINUTE;
}

/**
 * businessMinutesBetween and addBusinessMinutes for many instants (a report's tickets): the open spans
 * are made once, day by day as far as asked, each with the open time before it, so a question is a
 * binary search instead of a walk through the days (a month's report at a million tickets asked
 * 300,000 of them: 20 s of walks). Integer milliseconds throughout, so each answer is the walk's exactly.
 */
export function businessClock(h: BusinessHours): {
  /** The open milliseconds between two instants (businessMinutesBetween times a minute). */
  between(start: number, end: number): number;
  deadline(start: number, minutes: number): number;
} {
  if (!hoursConfigured(h)) return { between: (a, b) => Math.max(0, b - a), deadline: (a, m) => a + m * MINUTE };
  const zone = zoneOf(h.timezone);
  const utcDay = (t: number) => t - (((t % DAY) + DAY) % DAY);
  let first = 0; // the wall midnights of the first and last day held
  let last = -1;
  let starts: number[] = [];
  let ends: number[] = [];
  let days: number[] = [];
  /** Open milliseconds before each span, from the first held. */
  let before: number[] = [];

  /** Holds the days from `from` to `to` (wall midnights) beside those held, in time order. */
  const hold = (from: number, to: number) => {
    if (last >= first && from >= first && to <= last) return;
    if (last >= first) {
      // A quarter at a time beyond what is held: tickets asked in time order make a few rebuilds, not one a day.
      from = Math.min(from, first - (from < first ? 90 * DAY : 0));
      to = Math.max(to, last + (to > last ? 90 * DAY : 0));
    }
    const spans: [number, number, number][] = [];
    for (let d = from; d <= to; d += DAY) for (const [s, e] of openSpans(h, zone, d)) spans.push([s, e, d]);
    spans.sort((a, b) => a[0] - b[0]);
    starts = spans.map((s) => s[0]);
    ends = spans.map((s) => s[1]);
    days = spans.map((s) => s[2]);
    before = [];
    let open = 0;
    for (let i = 0; i < spans.length; i++) {
      before.push(open);
      open += ends[i]! - starts[i]!;
    }
    first = from;
    last = to;
  };
  /** The first span whose end is after `t` (starts.length when none). */
  const firstEndingAfter = (t: number) => {
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! > t) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  /** Open milliseconds from the first held span to `t`. */
  const openBefore = (t: number) => {
    const i = firstEndingAfter(t);
    if (i === starts.length) return i ? before[i - 1]! + ends[i - 1]! - starts[i - 1]! : 0;
    return before[i]! + Math.max(0, t - starts[i]!);
  };

  return {
    between(start, end) {
      if (end <= start) return 0;
      // Days held generously around both instants (a wall day is within 14 hours of the UTC one): asking
      // the zone for an instant's offset costs more than the rest of the answer.
      hold(utcDay(start) - 2 * DAY, utcDay(end) + 2 * DAY);
      return openBefore(end) - openBefore(start);
    },
    deadline(start, minutes) {
      // As addBusinessMinutes walks: the local days from the one before start's, 801 of them at most.
      // Its last day is found from the zone only when the answer comes near it.
      const near = utcDay(start);
      const lastDay = () => zone.wallDay(start) + 800 * DAY;
      const remaining = minutes * MINUTE;
      for (let upTo = near + 31 * DAY; ; upTo = Math.min(upTo + 180 * DAY, near + 802 * DAY)) {
        hold(near - 2 * DAY, upTo);
        const target = openBefore(start) + remaining;
        // The first span, ending after start, whose end reaches the target (open time only grows).
        let lo = firstEndingAfter(start);
        let hi = days.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (before[mid]! + ends[mid]! - starts[mid]! >= target) hi = mid;
          else lo = mid + 1;
        }
        if (lo < days.length && days[lo]! <= upTo && (days[lo]! < near + 798 * DAY || days[lo]! <= lastDay())) {
          const from = Math.max(starts[lo]!, start);
          return from + (target - openBefore(from));
        }
        if (upTo >= near + 802 * DAY) {
          // Not reached within the walk's days (or no number of minutes): it ends where the walk gives up,
          // at the end of the last span of those days that ends after start.
          const last = lastDay();
          let end = start;
          for (let i = firstEndingAfter(start); i < days.length && days[i]! <= last; i++) end = ends[i]!;
          return end;
        }
      }
    },
  };
}
