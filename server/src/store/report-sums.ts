import type { BusinessHours } from '../model/index.js';
import type { ActiveSince } from './ticket-store.js';

/**
 * What GET /reports asks of a store that sums in its database (reports/report.ts, reportQuestion): the
 * tickets a scan with `active` would give, filtered, then summed as buildReport sums them. Times are ISO
 * instants.
 */
export interface ReportQuestion {
  active: ActiveSince;
  /** The local midnights that start each day of the period, then the end of the period: days + 1 instants. */
  bounds: string[];
  category?: string | undefined;
  /** An agent id, or null: the unassigned. */
  agent?: string | null | undefined;
  tag?: string | undefined;
  now: string;
  /** Null when the SLA is off; else its minutes per priority. */
  sla: { first_response_minutes: Record<string, number>; resolution_minutes: Record<string, number> } | null;
  /** How many of the newest rating comments the report shows. */
  comments: number;
  /** The opening hours when support is counted in them (the SLA's business_hours_only), else null. */
  hours: BusinessHours | null;
}

/** The values at the nearest ranks a figure needs (reports/report.ts, durationFigure), in milliseconds. */
export interface DurationRanks {
  count: number;
  /** The values at ranks ceil(n/2) from the bottom and from the top (the same one when n is odd), and ceil(0.9 n). */
  low: number | null;
  high: number | null;
  p90: number | null;
}

/** The sums of a report, as a store that makes them in its database gives them. */
export interface ReportSums {
  /** Per day of the period: tickets created, tickets closed. */
  opened: number[];
  closed: number[];
  firstResponse: DurationRanks;
  resolution: DurationRanks;
  breaches: { tickets: number; first_response_breaches: number; resolution_breaches: number; breached_tickets: number };
  /** Ratings given in the period, by score 1-5. */
  scores: number[];
  /** The newest rating comments of the period that are not blank, trimmed, newest first. */
  comments: { ticket_id: string; subject: string; score: number; comment: string; rated_at: string }[];
  /** Tickets per status, of the statuses not closed. */
  backlog: Record<string, number>;
}
