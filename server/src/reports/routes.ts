import { routeFor } from '../http/route.js';
import { ReportSchema, type KeyMode } from '../model/index.js';
import { feedbackFigures } from '../helpcentre/feedback-figures.js';
import type { FeedbackStore } from '../helpcentre/feedback-store.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';
import { reportCsv } from './csv.js';
import { buildReport, closedStatuses, reportFromSums, reportQuestion, resolvePeriod } from './report.js';
import { ReportQuery } from './schema.js';

/** What the report route needs from the app (the app's Deps provides it). */
export interface ReportDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  kbFeedback: FeedbackStore;
  clock: () => Date;
}

const route = routeFor<ReportDeps>();

const report = route({
  method: 'get',
  path: '/reports',
  access: 'staff',
  summary: 'Reports: tickets opened and closed per day, response and resolution times, SLA, CSAT, backlog',
  description:
    'Computed from the stored tickets of the caller’s mode. `from` and `to` are days in the time zone of ' +
    'business_hours (default: the 30 days up to today; at most 366 days). Opened, first response and SLA ' +
    'count the tickets created in the period; closed and resolution the tickets closed in it; CSAT the ratings ' +
    'given in it; the backlog is now. Times are in minutes, counting open time only when the SLA says ' +
    'business_hours_only. `format=csv` answers the same as a CSV download (cells that a spreadsheet would ' +
    'take for a formula start with an apostrophe).',
  query: ReportQuery,
  responses: {
    200: {
      description: 'The report, as JSON or (format=csv) as text/csv',
      schema: ReportSchema,
      media: { 'text/csv': { type: 'string' } },
      headers: ['Content-Disposition', 'Cache-Control'],
    },
  },
  async handler({ actor, query }, deps) {
    const config = deps.configStore.get();
    const now = deps.clock();
    const period = resolvePeriod(query, config.business_hours.timezone, now);
    const filters = { category: query.category, agent: query.agent, tag: query.tag };
    const store = deps.tickets[actor.mode];
    // PostgreSQL sums in the database (a month of a million tickets); the JSON store's scan is summed here.
    const figures = store.reportSums
      ? reportFromSums(
          await store.reportSums(reportQuestion(config, period, filters, now)),
          config,
          period,
          filters,
          now,
        )
      : // Tickets closed before the period with no activity since cannot count in it: a store may skip them.
        await buildReport(
          store.scan({ since: new Date(period.start).toISOString(), closed: closedStatuses(config) }),
          config,
          period,
          filters,
          now,
        );
    const body = {
      ...figures,
      kb_feedback: await feedbackFigures(deps.kbFeedback, config.kb, actor.mode, period),
    };
    // Figures about customers' tickets: for the caller only, never kept by a cache on the way.
    const headers = { 'Cache-Control': 'private, no-store' };
    if (query.format === 'json') return { body, headers };
    // The name is ASCII (two dates), given both ways as every download of this API gives it (RFC 6266).
    const name = `report-${period.from}-${period.to}.csv`;
    return {
      raw: { data: reportCsv(body), type: 'text/csv; charset=utf-8' },
      headers: { ...headers, 'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${name}` },
    };
  },
});

export const reportRoutes = [report];
