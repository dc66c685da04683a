import { fmt } from '../rules/strings.js';
import type { SlaStrings } from './strings.js';

/** 90 minutes as "= 1.5 h", 2880 as "= 2 d 0 h": what a number of minutes means at a glance. */
export function asHours(t: SlaStrings, minutes: number | null | undefined): string {
  if (!minutes || minutes < 0) return '';
  const round = (n: number) => String(Math.round(n * 100) / 100);
  if (minutes < 1440) return fmt(t.asHours, { h: round(minutes / 60) });
  const days = Math.floor(minutes / 1440);
  const rest = minutes % 1440;
  return rest ? fmt(t.asDays, { d: days, h: round(rest / 60) }) : fmt(t.asWholeDays, { d: days });
}
