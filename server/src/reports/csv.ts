import type { DurationFigure, Report } from '../model/index.js';

/**
 * One CSV cell (RFC 4180). A text that starts with = + - @ (or a tab or carriage return) is a formula
 * to a spreadsheet: a customer's rating comment "=HYPERLINK(…)" would run when support opens the
 * file, so it gets a leading apostrophe and is shown as text (OWASP, "CSV Injection").
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const row = (cells: (string | number | boolean | null)[]) => cells.map(csvCell).join(',');

const figure = (name: string, f: DurationFigure) => [
  row([`${name}_count`, f.count]),
  row([`${name}_median_minutes`, f.median_minutes]),
  row([`${name}_p90_minutes`, f.p90_minutes]),
];

/**
 * The report as a spreadsheet reads it: one row per day, then the summary as name and value, then the
 * rating comments; the three tables apart by an empty line. CRLF line ends, as RFC 4180 has them.
 */
export function reportCsv(r: Report): string {
  const lines = [
    row(['date', 'opened', 'closed']),
    ...r.days.map((d) => row([d.date, d.opened, d.closed])),
    '',
    row(['figure', 'value']),
    row(['from', r.period.from]),
    row(['to', r.period.to]),
    row(['timezone', r.period.timezone]),
    row(['category', r.filters.category]),
    row(['agent', r.filters.agent]),
    row(['tag', r.filters.tag]),
    row(['opened', r.totals.opened]),
    row(['closed', r.totals.closed]),
    row(['business_hours', r.business_hours]),
    ...figure('first_response', r.first_response),
    ...figure('resolution', r.resolution),
    row(['sla_enabled', r.sla.enabled]),
    row(['sla_tickets', r.sla.tickets]),
    row(['sla_first_response_breaches', r.sla.first_response_breaches]),
    row(['sla_resolution_breaches', r.sla.resolution_breaches]),
    row(['sla_breached_tickets', r.sla.breached_tickets]),
    row(['csat_count', r.csat.count]),
    row(['csat_average', r.csat.average]),
    ...r.csat.distribution.map((d) => row([`csat_score_${d.score}`, d.count])),
    row(['backlog_total', r.backlog.total]),
    ...r.backlog.statuses.map((s) => row([`backlog_${s.status}`, s.count])),
    '',
    row(['ticket_id', 'subject', 'score', 'comment', 'rated_at']),
    ...r.csat.comments.map((c) => row([c.ticket_id, c.subject, c.score, c.comment, c.rated_at])),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
