import { z } from 'zod';
import { hexColor, isoTime, slug, uniqueBy } from './common.js';
import { PRIORITIES, PrioritySchema } from './tickets.js';

// Macros, rules, tags, escalation and the time-based settings (SLA, autoreply, autoclose).

export const ACTION_TYPES = ['set_priority', 'set_status', 'assign', 'add_tag', 'notify', 'webhook'] as const;
/** Actions that change the ticket itself (the others send something). */
export const TICKET_ACTIONS = ['set_priority', 'set_status', 'assign', 'add_tag'] as const;

// Rules and escalation share actions (docs/api.md "rules").
export const ActionSchema = z.object({
  type: z.enum(ACTION_TYPES),
  value: z.string().max(2000),
});
export type Action = z.infer<typeof ActionSchema>;

export const CONDITION_FIELDS = [
  'subject',
  'message',
  'email',
  'category',
  'priority',
  'status',
  'from_customer',
] as const;
export const CONDITION_OPS = ['equals', 'not_equals', 'contains', 'starts_with', 'ends_with'] as const;
export const ConditionSchema = z.object({
  field: z.enum(CONDITION_FIELDS),
  op: z.enum(CONDITION_OPS),
  value: z.string().max(2000),
});
export type Condition = z.infer<typeof ConditionSchema>;

export const MacroSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  message: z.string().min(1).max(50_000),
  status: slug.nullable().optional(),
  priority: PrioritySchema.nullable().optional(),
});
export const MacrosSchema = z
  .array(MacroSchema)
  .max(500)
  .superRefine(...uniqueBy('id', 'macro'));

/** The events rules run on. */
export const RULE_EVENTS = ['ticket.created', 'ticket.replied', 'ticket.status_changed'] as const;

export const RuleSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  enabled: z.boolean().default(true),
  event: z.enum(RULE_EVENTS),
  conditions: z.array(ConditionSchema).max(20).default([]),
  actions: z.array(ActionSchema).min(1).max(20),
});
export type Rule = z.infer<typeof RuleSchema>;
export const RulesSchema = z
  .array(RuleSchema)
  .max(200)
  .superRefine(...uniqueBy('id', 'rule'));

/** POST /rules/test: which rules would act on a stored ticket, tried without changing it. */
export const RulesTestInputSchema = z.object({
  ticket_id: z.string().min(1, 'is required').max(100),
  event: z.enum(RULE_EVENTS).default('ticket.created').describe('the event to pretend happened'),
  rules: RulesSchema.optional().describe('rules to try (unsaved ones from an editor); the saved rules when left out'),
});

/** The parts of a ticket rules change. */
const RuleTargetSchema = z.object({
  status: z.string(),
  priority: PrioritySchema,
  agent_id: z.string().nullable(),
  tags: z.array(z.string()),
});

export const RULE_SKIP_REASONS = ['disabled', 'other_event', 'conditions'] as const;
export const RuleCheckSchema = z.object({
  id: z.string(),
  name: z.string(),
  fires: z.boolean(),
  reason: z.enum(RULE_SKIP_REASONS).nullable().describe('why the rule would not act; null when it would'),
  conditions: z.array(
    ConditionSchema.extend({
      actual: z.string().describe('what the condition looked at (cut at 200 characters)'),
      holds: z.boolean(),
    }),
  ),
  actions: z.array(
    ActionSchema.extend({
      applies: z.boolean().describe('false: skipped, it no longer fits the configuration (a removed status or agent)'),
    }),
  ),
});
export type RuleCheck = z.infer<typeof RuleCheckSchema>;

export const RulesTestResultSchema = z
  .object({
    ticket_id: z.string(),
    event: z.enum(RULE_EVENTS),
    rules: z.array(RuleCheckSchema).describe('every rule tried, in order'),
    before: RuleTargetSchema,
    after: RuleTargetSchema.describe('the ticket as the rules would leave it (nothing is stored)'),
    sends: z.array(ActionSchema).describe('notify and webhook actions that would send something'),
    tested_at: isoTime,
  })
  .meta({ id: 'RulesTestResult' });
export type RulesTestResult = z.infer<typeof RulesTestResultSchema>;

export const TagSchema = z.object({ name: z.string().trim().min(1).max(50), color: hexColor });
export const TagsSchema = z
  .array(TagSchema)
  .max(500)
  .superRefine(...uniqueBy('name', 'tag'));

export const EscalationSchema = z.object({
  id: slug,
  after_minutes: z.number().int().min(1).max(525_600),
  when: z.enum(['no_first_response', 'unresolved']),
  actions: z.array(ActionSchema).min(1).max(20),
});
export const EscalationsSchema = z
  .array(EscalationSchema)
  .max(100)
  .superRefine(...uniqueBy('id', 'escalation'));

/** Minutes per priority, defaults relative to `normal`: low gets twice as long, urgent a quarter. */
const SCALE: Record<(typeof PRIORITIES)[number], number> = { low: 2, normal: 1, high: 0.5, urgent: 0.125 };
const perPriority = (normal: number) =>
  z
    .object(
      Object.fromEntries(
        PRIORITIES.map((p) => [
          p,
          z
            .number()
            .int()
            .min(1)
            .max(525_600)
            .default(Math.max(1, normal * SCALE[p])),
        ]),
      ) as Record<(typeof PRIORITIES)[number], z.ZodDefault<z.ZodNumber>>,
    )
    .prefault({});

export const SlaSchema = z.object({
  enabled: z.boolean().default(false),
  business_hours_only: z.boolean().default(false),
  first_response_minutes: perPriority(480),
  resolution_minutes: perPriority(2880),
});

export const AutoreplySchema = z.object({
  enabled: z.boolean().default(false),
  subject: z
    .string()
    .min(1)
    .max(300)
    .refine((s) => !/[\r\n]/.test(s), 'must be on one line')
    .default('We received your request: {{subject}}'),
  message: z
    .string()
    .min(1)
    .max(10_000)
    .default(
      'Hi {{name}},\n\nthank you for writing. We will answer as soon as we can.\nYour ticket number is {{number}}.',
    ),
  outside_hours_message: z.string().max(10_000).nullable().default(null),
});

export const AutocloseSchema = z.object({
  enabled: z.boolean().default(false),
  after_days: z.number().int().min(1).max(365).default(7),
  // Pending is where a support reply leaves a ticket by default (WorkflowSchema): waiting on the customer.
  statuses: z.array(slug).max(50).default(['pending', 'answered']),
});

/** What happens after a reply (issue 30). */
export const WorkflowSchema = z.object({
  reply_status: slug
    .nullable()
    .default('pending')
    .describe(
      'the status a support reply sets when it names none (no `status`, no macro status); null keeps the ' +
        'status. A customer’s message moves a ticket in this status (or a closed one) back to the first open status',
    ),
});
export type Workflow = z.infer<typeof WorkflowSchema>;
