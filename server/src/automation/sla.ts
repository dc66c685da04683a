import type { ConfigData } from '../admin/schema.js';
import type { Ticket } from '../api-types.js';
import { exactLocal, hoursConfigured, localTime, type BusinessHours } from '../portal/business-hours.js';
import { isClosedStatus } from '../tickets/statuses.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * `start` plus `minutes` of open time: only minutes inside the configured intervals count, holidays
 * count as closed. Without configured hours every minute counts.
 */
export function addBusinessMinutes(hours: BusinessHours, start: Date, minutes: number): Date {
  if (!hoursConfigured(hours)) return new Date(start.getTime() + minutes * MINUTE);
  let remaining = minutes;
  let cursor = start.getTime();
  for (let day = 0; day < 800; day++) {
    const local = localTime(new Date(cursor), hours.timezone);
    const midnight = exactLocal(cursor - local.minutes * MINUTE, 0, hours.timezone);
    if (!hours.holidays.includes(local.date)) {
      const intervals = [...hours.days[local.weekday]].sort((a, b) => toMinutes(a.open) - toMinutes(b.open));
      for (const i of intervals) {
        const from = Math.max(local.minutes, toMinutes(i.open));
        const available = toMinutes(i.close) - from;
        if (available <= 0) continue;
        if (remaining <= available)
          return new Date(exactLocal(midnight + (from + remaining) * MINUTE, from + remaining, hours.timezone));
        remaining -= available;
      }
    }
    // On to the next local midnight (a DST day is 23 or 25 hours long; exactLocal finds it).
    cursor = exactLocal(midnight + DAY + 2 * 60 * MINUTE, 0, hours.timezone);
  }
  return new Date(cursor);
}

/**
 * The SLA deadline a ticket shows in `due_at`: its first-response deadline until support first
 * replies, then its resolution deadline, both counted from creation (in business minutes when
 * `business_hours_only`); null when the SLA is off or the ticket is in a closed status.
 */
export function dueAt(t: Ticket, config: ConfigData): string | null {
  const { sla } = config;
  if (!sla.enabled || isClosedStatus(config.statuses, t.status)) return null;
  const answered = t.replies.some((r) => !r.from_customer);
  const minutes = (answered ? sla.resolution_minutes : sla.first_response_minutes)[t.priority];
  const start = new Date(t.created_at);
  const due = sla.business_hours_only
    ? addBusinessMinutes(config.business_hours, start, minutes)
    : new Date(start.getTime() + minutes * MINUTE);
  return due.toISOString();
}

/** Fields derived from the rest of the ticket, refreshed on every write. */
export function derive(t: Ticket, config: ConfigData): Ticket {
  const due = dueAt(t, config);
  return due === t.due_at ? t : { ...t, due_at: due };
}
