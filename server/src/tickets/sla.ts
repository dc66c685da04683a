import type { ConfigData, Ticket } from '../model/index.js';
import { addBusinessMinutes } from '../hours/business-hours.js';
import { isClosedStatus } from './statuses.js';

const MINUTE = 60_000;

/**
 * The SLA deadline a ticket shows in `due_at`: its first-response deadline until support first
 * replies, then its resolution deadline, both counted from creation (in business minutes when
 * `business_hours_only`); null when the SLA is off or the ticket is in a closed status.
 */
function dueAt(t: Omit<Ticket, 'number'>, config: ConfigData): string | null {
  const { sla } = config;
  if (!sla.enabled || isClosedStatus(config.statuses, t.status)) return null;
  const answered = t.replies.some((r) => !r.from_customer && !r.internal); // a note answers nobody
  const minutes = (answered ? sla.resolution_minutes : sla.first_response_minutes)[t.priority];
  const start = new Date(t.created_at);
  const due = sla.business_hours_only
    ? addBusinessMinutes(config.business_hours, start, minutes)
    : new Date(start.getTime() + minutes * MINUTE);
  return due.toISOString();
}

/** Fields derived from the rest of the ticket, refreshed on every write. */
export function derive<T extends Omit<Ticket, 'number'>>(t: T, config: ConfigData): T {
  const due = dueAt(t, config);
  return due === t.due_at ? t : { ...t, due_at: due };
}
