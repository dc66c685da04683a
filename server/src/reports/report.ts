import { DateTime } from 'luxon';
import { businessClock } from '../hours/business-hours.js';
import { validationError } from '../http/errors.js';
import type { ConfigData, DurationFigure, Report } from '../model/index.js';
import type { DurationRanks, ReportQuestion, ReportSums } from '../store/report-sums.js';
import type { TicketFacts } from '../store/ticket-store.js';

const MINUTE = 60_000;
/** A leap year: the per-day rows stay a size a chart and a spreadsheet take. */
const MAX_DAYS = 366;
const MAX_COMMENTS = 100;
const UNASSIGNED = 'none';

/** The days a report covers, as dates in the portal's time zone and as the instants they span. */
export interface Period {
  from: string;
  to: string;
  timezone: string;
  /** [start, end) in epoch milliseconds: local midnight of `from` to local midnight after `to`. */
  start: number;
  end: number;
  days: string[];
}

export interface ReportFilters {
  category?: string | undefined;
  agent?: string | undefined;
  tag?: string | undefined;
}

/**
 * The period asked for, with its defaults (the 30 days up to today in the portal's time zone). Dates
 * are the business-hours zone's, so a day's row is the day as the support team lives it.
 */
export function resolvePeriod(
  query: { from?: string | undefined; to?: string | undefined },
  timezone: string,
  now: Date,
): Period {
  const today = DateTime.fromJSDate(now, { zone: timezone }).toISODate()!;
  const to = query.to ?? today;
  const first = query.from ?? DateTime.fromISO(to).minus({ days: 29 }).toISODate()!;
  const start = DateTime.fromISO(first, { zone: timezone }).startOf('day');
  const from = start.toISODate()!;
  if (from > to) throw validationError('from', `must not be after to (${to})`);
  const days: string[] = [];
  for (let d = start; d.toISODate()! <= to; d = d.plus({ days: 1 })) {
    days.push(d.toISODate()!);
    if (days.length > MAX_DAYS) throw validationError('to', `the period may span at most ${MAX_DAYS} days`);
  }
  const end = DateTime.fromISO(to, { zone: timezone }).plus({ days: 1 }).startOf('day');
  return { from, to, timezone, start: start.toMillis(), end: end.toMillis(), days };
}

/**
 * Median and nearest-rank 90th percentile of minutes, to a tenth of a minute, from the values at the
 * ranks they need: `low` and `high` at rank ceil(n/2) from the bottom and from the top (one value when
 * n is odd), `p90` at rank ceil(0.9 n). A store that sums in its database gives just these.
 */
function figureOf(count: number, low: number, high: number, p90: number): DurationFigure {
  const median = count % 2 ? low : (low + high) / 2;
  const tenth = (x: number) => Math.round(x * 10) / 10;
  return { count, median_minutes: tenth(median), p90_minutes: tenth(p90) };
}

function durationFigure(values: number[]): DurationFigure {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  if (!n) return { count: 0, median_minutes: null, p90_minutes: null };
  return figureOf(n, v[Math.ceil(n / 2) - 1]!, v[n - Math.ceil(n / 2)]!, v[Math.ceil(0.9 * n) - 1]!);
}

/** The same figure from a store's ranks, given in milliseconds (calendar time: a minute is 60,000 of them). */
function rankedFigure(r: DurationRanks): DurationFigure {
  if (!r.count || r.low === null || r.high === null || r.p90 === null)
    return { count: 0, median_minutes: null, p90_minutes: null };
  return figureOf(r.count, r.low / MINUTE, r.high / MINUTE, r.p90 / MINUTE);
}

/**
 * Every figure of GET /reports, from one pass over the stored tickets (the store's scan, the same on
 * JSON files and PostgreSQL). Times are taken as stored: created_at, the first reply by support,
 * closed_at (cleared when a ticket is reopened), the rating's rated_at.
 */
export async function buildReport(
  tickets: AsyncIterable<TicketFacts>,
  config: ConfigData,
  period: Period,
  filters: ReportFilters,
  now: Date,
): Promise<Omit<Report, 'kb_feedback'>> {
  const { sla, business_hours: hours } = config;
  const businessOnly = sla.business_hours_only;
  const closedSet = new Set(closedStatuses(config));
  const dayIndex = new Map(period.days.map((d, i) => [d, i]));
  const days = period.days.map((date) => ({ date, opened: 0, closed: 0 }));
  const zone = period.timezone;
  const dayOf = (t: number) => dayIndex.get(DateTime.fromMillis(t, { zone }).toISODate()!);
  const inPeriod = (t: number) => t >= period.start && t < period.end;
  // The open spans made once for every ticket (hours/business-hours.ts): a walk through the days per
  // ticket cost a month's report at a million tickets 20 s.
  const clock = businessOnly ? businessClock(hours) : undefined;
  const span = (a: number, b: number) => (clock ? clock.between(a, b) : Math.max(0, b - a)) / MINUTE;
  const deadline = (created: number, minutes: number) =>
    clock ? clock.deadline(created, minutes) : created + minutes * MINUTE;

  const firstResponses: number[] = [];
  const resolutions: number[] = [];
  const breaches = { tickets: 0, first_response_breaches: 0, resolution_breaches: 0, breached_tickets: 0 };
  const scores = [0, 0, 0, 0, 0];
  let scoreSum = 0;
  const comments: Report['csat']['comments'] = [];
  const backlog = new Map(config.statuses.filter((s) => !s.closed).map((s) => [s.id, 0]));
  const nowMs = now.getTime();

  for await (const { item: t, firstResponseAt } of tickets) {
    if (filters.category !== undefined && t.category !== filters.category) continue;
    // `none`: the unassigned (an agent id is agt_…, never that word).
    if (filters.agent !== undefined && t.agent_id !== (filters.agent === UNASSIGNED ? null : filters.agent)) continue;
    if (filters.tag !== undefined && !t.tags.includes(filters.tag)) continue;
    const created = Date.parse(t.created_at);
    const closed = t.closed_at === null ? null : Date.parse(t.closed_at);
    const responded = firstResponseAt === null ? null : Date.parse(firstResponseAt);

    if (inPeriod(created)) {
      const i = dayOf(created);
      if (i !== undefined) days[i]!.opened++;
      if (responded !== null) firstResponses.push(span(created, responded));
      if (sla.enabled) {
        breaches.tickets++;
        const firstLate = (responded ?? closed ?? nowMs) > deadline(created, sla.first_response_minutes[t.priority]);
        const resolveLate = (closed ?? nowMs) > deadline(created, sla.resolution_minutes[t.priority]);
        if (firstLate) breaches.first_response_breaches++;
        if (resolveLate) breaches.resolution_breaches++;
        if (firstLate || resolveLate) breaches.breached_tickets++;
      }
    }
    if (closed !== null && inPeriod(closed)) {
      const i = dayOf(closed);
      if (i !== undefined) days[i]!.closed++;
      resolutions.push(span(created, closed));
    }
    if (t.rating && inPeriod(Date.parse(t.rating.rated_at))) {
      scores[t.rating.score - 1]!++;
      scoreSum += t.rating.score;
      const comment = t.rating.comment?.trim();
      if (comment) {
        comments.push({
          ticket_id: t.id,
          subject: t.subject,
          score: t.rating.score,
          comment,
          rated_at: t.rating.rated_at,
        });
      }
    }
    // A status no longer configured is not a closed one: the ticket still waits.
    if (!closedSet.has(t.status)) backlog.set(t.status, (backlog.get(t.status) ?? 0) + 1);
  }

  comments.sort((a, b) => (a.rated_at < b.rated_at ? 1 : a.rated_at > b.rated_at ? -1 : 0));
  return assemble(
    {
      days,
      first_response: durationFigure(firstResponses),
      resolution: durationFigure(resolutions),
      breaches,
      scores,
      scoreSum,
      comments: comments.slice(0, MAX_COMMENTS),
      backlog,
    },
    config,
    period,
    filters,
    now,
  );
}

/** What both ways of summing give: the figures before they are put in the report's shape. */
interface Summed {
  days: Report['days'];
  first_response: DurationFigure;
  resolution: DurationFigure;
  breaches: Omit<Report['sla'], 'enabled'>;
  scores: number[];
  scoreSum: number;
  comments: Report['csat']['comments'];
  /** The statuses not closed, the configured ones first in their order. */
  backlog: Map<string, number>;
}

function assemble(
  summed: Summed,
  config: ConfigData,
  period: Period,
  filters: ReportFilters,
  now: Date,
): Omit<Report, 'kb_feedback'> {
  const { days, scores, scoreSum, backlog } = summed;
  const rated = scores.reduce((a, b) => a + b, 0);
  const names = new Map(config.statuses.map((s) => [s.id, s.name]));
  const backlogRows = [...backlog].map(([status, count]) => ({ status, name: names.get(status) ?? status, count }));
  return {
    period: { from: period.from, to: period.to, timezone: period.timezone },
    filters: { category: filters.category ?? null, agent: filters.agent ?? null, tag: filters.tag ?? null },
    generated_at: now.toISOString(),
    days,
    totals: {
      opened: days.reduce((n, d) => n + d.opened, 0),
      closed: days.reduce((n, d) => n + d.closed, 0),
    },
    business_hours: config.sla.business_hours_only,
    first_response: summed.first_response,
    resolution: summed.resolution,
    sla: { enabled: config.sla.enabled, ...summed.breaches },
    csat: {
      count: rated,
      average: rated ? Math.round((scoreSum / rated) * 100) / 100 : null,
      distribution: scores.map((count, i) => ({ score: i + 1, count })),
      comments: summed.comments,
    },
    backlog: { total: backlogRows.reduce((n, r) => n + r.count, 0), statuses: backlogRows },
  };
}

/** What a store that sums in its database is asked (TicketStore.reportSums). */
export function reportQuestion(config: ConfigData, period: Period, filters: ReportFilters, now: Date): ReportQuestion {
  const zone = period.timezone;
  const bounds = period.days.map((d) => DateTime.fromISO(d, { zone }).startOf('day').toUTC().toISO()!);
  bounds.push(new Date(period.end).toISOString());
  return {
    active: { since: new Date(period.start).toISOString(), closed: closedStatuses(config) },
    bounds,
    category: filters.category,
    agent: filters.agent === undefined ? undefined : filters.agent === UNASSIGNED ? null : filters.agent,
    tag: filters.tag,
    now: now.toISOString(),
    sla: config.sla.enabled
      ? { first_response_minutes: config.sla.first_response_minutes, resolution_minutes: config.sla.resolution_minutes }
      : null,
    comments: MAX_COMMENTS,
    hours: config.sla.business_hours_only ? config.business_hours : null,
  };
}

/** The statuses that close a ticket (configuration). */
export const closedStatuses = (config: ConfigData) => config.statuses.filter((s) => s.closed).map((s) => s.id);

/** The report from a store's sums: the same figures buildReport makes from a scan. */
export function reportFromSums(
  sums: ReportSums,
  config: ConfigData,
  period: Period,
  filters: ReportFilters,
  now: Date,
): Omit<Report, 'kb_feedback'> {
  const backlog = new Map(config.statuses.filter((s) => !s.closed).map((s) => [s.id, 0]));
  for (const [status, n] of Object.entries(sums.backlog)) backlog.set(status, (backlog.get(status) ?? 0) + n);
  return assemble(
    {
      days: period.days.map((date, i) => ({ date, opened: sums.opened[i] ?? 0, closed: sums.closed[i] ?? 0 })),
      first_response: rankedFigure(sums.firstResponse),
      resolution: rankedFigure(sums.resolution),
      breaches: sums.breaches,
      scores: sums.scores,
      scoreSum: sums.scores.reduce((n, count, i) => n + count * (i + 1), 0),
      comments: sums.comments,
      backlog,
    },
    config,
    period,
    filters,
    now,
  );
}
