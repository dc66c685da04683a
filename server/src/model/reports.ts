import { z } from 'zod';
import { isoTime } from './common.js';

// GET /reports: figures computed from the stored tickets of the caller's mode (reports/report.ts).

const minutes = z.number().min(0).nullable();

/** A time figure over some tickets: how many, their median and 90th percentile in minutes (null: none). */
export const DurationFigureSchema = z
  .strictObject({
    count: z.number().int().min(0).describe('how many tickets the figure is taken over'),
    median_minutes: minutes.describe('the middle value (the mean of the two middle ones for an even count)'),
    p90_minutes: minutes.describe('nearest rank: the smallest value that at least 90% of the values do not exceed'),
  })
  .meta({ id: 'DurationFigure' });
export type DurationFigure = z.infer<typeof DurationFigureSchema>;

export const ReportSchema = z
  .strictObject({
    period: z.strictObject({
      from: z.iso.date().describe('the first day, in the time zone of business_hours'),
      to: z.iso.date().describe('the last day, included'),
      timezone: z.string().describe('business_hours.timezone: where a day starts and ends'),
    }),
    filters: z.strictObject({
      category: z.string().nullable(),
      agent: z.string().nullable().describe('the assignee’s agent id, or none (the unassigned)'),
      tag: z.string().nullable(),
    }),
    generated_at: isoTime,
    days: z
      .array(z.strictObject({ date: z.iso.date(), opened: z.number().int().min(0), closed: z.number().int().min(0) }))
      .describe('every day of the period, oldest first: tickets created that day, and closed that day'),
    totals: z.strictObject({ opened: z.number().int().min(0), closed: z.number().int().min(0) }),
    business_hours: z
      .boolean()
      .describe('true when the SLA counts business hours only: the times below then count open time only'),
    first_response: DurationFigureSchema.describe(
      'creation to the first reply by support (notes do not count), over the tickets opened in the period that have one',
    ),
    resolution: DurationFigureSchema.describe(
      'creation to closing, over the tickets closed in the period (and still closed)',
    ),
    sla: z
      .strictObject({
        enabled: z.boolean(),
        tickets: z.number().int().min(0).describe('tickets opened in the period, each checked against its deadlines'),
        first_response_breaches: z
          .number()
          .int()
          .min(0)
          .describe('first reply after its deadline, or none while the deadline passed with the ticket open'),
        resolution_breaches: z.number().int().min(0).describe('closed after its deadline, or still open past it'),
        breached_tickets: z.number().int().min(0).describe('tickets with either breach'),
      })
      .describe('deadlines as the SLA is set now, by each ticket’s priority; all 0 while the SLA is off'),
    csat: z
      .strictObject({
        count: z.number().int().min(0).describe('ratings given in the period'),
        average: z.number().nullable().describe('mean score, two decimals; null without ratings'),
        distribution: z
          .array(z.strictObject({ score: z.number().int().min(1).max(5), count: z.number().int().min(0) }))
          .describe('scores 1 to 5, each with its count'),
        comments: z
          .array(
            z.strictObject({
              ticket_id: z.string(),
              subject: z.string(),
              score: z.number().int().min(1).max(5),
              comment: z.string(),
              rated_at: isoTime,
            }),
          )
          .describe('ratings with a comment, newest first, at most 100'),
      })
      .describe('customer ratings whose rated_at falls in the period'),
    backlog: z
      .strictObject({
        total: z.number().int().min(0),
        statuses: z.array(z.strictObject({ status: z.string(), name: z.string(), count: z.number().int().min(0) })),
      })
      .describe(
        'tickets in a status that is not closed, now (the period does not apply): every open status, in configured order',
      ),
    kb_feedback: z
      .strictObject({
        helpful: z.number().int().min(0).describe('“Yes” votes'),
        not_helpful: z.number().int().min(0).describe('“No” votes'),
        articles: z
          .array(
            z.strictObject({
              article_id: z.string(),
              title: z.string().nullable().describe('null: the article was deleted since'),
              helpful: z.number().int().min(0),
              not_helpful: z.number().int().min(0),
            }),
          )
          .describe('per article, the most votes first'),
      })
      .describe('answers to “Was this helpful?” under KB articles (help centre and widget) given in the period'),
  })
  .meta({ id: 'Report' });
export type Report = z.infer<typeof ReportSchema>;
