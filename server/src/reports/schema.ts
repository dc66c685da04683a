import { z } from 'zod';
import { optional } from '../http/coerce.js';

const day = (what: string) =>
  optional(z.iso.date('must be a date like 2026-11-01')).describe(
    `${what} (YYYY-MM-DD, in the time zone of business_hours)`,
  );

const REPORT_FORMATS = ['json', 'csv'] as const;

export const ReportQuery = z.object({
  from: day('the first day; default: 29 days before `to`'),
  to: day('the last day, included; default: today'),
  category: optional(z.string().max(32)).describe('only tickets of this category id'),
  agent: optional(z.string().max(100)).describe('only tickets assigned to this agent id; `none`: the unassigned'),
  tag: optional(z.string().max(100)).describe('only tickets with this tag'),
  format: optional(z.enum(REPORT_FORMATS, 'must be json or csv'))
    .transform((f) => f ?? 'json')
    .describe('json (the default) or csv (a download: one row per day, then the summary and the comments)'),
});
export type ReportQuery = z.output<typeof ReportQuery>;
