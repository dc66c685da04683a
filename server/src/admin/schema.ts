import { z } from 'zod';
import { isIpOrCidr } from './ip.js';
import { withWebhookSecrets } from './webhook-secrets.js';

// Every configuration resource is a zod schema with its defaults (API.md, "/admin"). The management
// issue adds the rest; the ticket API reads categories, statuses and agents from here.

export const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a slug: a-z, 0-9, _ and -, up to 32');
const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour like #2563eb');

/**
 * "Ids (or names) unique within a list". Runs even when items have other problems (`when`), so one
 * write lists every problem; items without a usable key are left to their own schema.
 */
function uniqueBy(field: string, what: string) {
  return [
    (list: unknown, ctx: z.RefinementCtx) => {
      if (!Array.isArray(list)) return;
      const seen = new Set<string>();
      list.forEach((item, index) => {
        const value = (item as Record<string, unknown> | null)?.[field];
        if (typeof value !== 'string') return;
        const k = value.toLowerCase();
        if (seen.has(k))
          ctx.addIssue({ code: 'custom', path: [index, field], message: `duplicate ${what} "${value}"` });
        seen.add(k);
      });
    },
    { when: () => true },
  ] as const;
}

export const FieldSchema = z
  .object({
    id: slug,
    label: z.string().min(1).max(200),
    type: z.enum(['text', 'textarea', 'number', 'email', 'url', 'select', 'checkbox', 'date']),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(200)).max(100).optional(),
    placeholder: z.string().max(200).nullable().optional(),
  })
  .refine((f) => f.type !== 'select' || (f.options?.length ?? 0) > 0, {
    message: 'a select field needs options',
    path: ['options'],
  });

export const CategorySchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  fields: z
    .array(FieldSchema)
    .max(50)
    .default([])
    .superRefine(...uniqueBy('id', 'field')),
});
export const CategoriesSchema = z
  .array(CategorySchema)
  .max(200)
  .superRefine(...uniqueBy('id', 'category'));

export const StatusSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  closed: z.boolean().default(false),
  color: hexColor.nullable().default(null),
});
export const StatusesSchema = z
  .array(StatusSchema)
  .max(50)
  .superRefine(...uniqueBy('id', 'status'))
  .refine((list) => list.some((s) => !s.closed) && list.some((s) => s.closed), {
    message: 'needs at least one open and one closed status',
  });

export const DEFAULT_STATUSES: z.infer<typeof StatusesSchema> = [
  { id: 'open', name: 'Open', closed: false, color: '#2563eb' },
  { id: 'pending', name: 'Pending', closed: false, color: '#d97706' },
  { id: 'answered', name: 'Answered', closed: false, color: '#059669' },
  { id: 'closed', name: 'Closed', closed: true, color: '#6b7280' },
];

export const StoredKeySchema = z.object({
  id: z.string(),
  kind: z.enum(['public', 'secret']),
  mode: z.enum(['live', 'test']),
  prefix: z.string(),
  /** Public keys only: the key itself (it is public by design). */
  key: z.string().nullable().default(null),
  /** Secret keys only: hex SHA-256 of the key. */
  hash: z.string().nullable().default(null),
  origins: z.array(z.string()).default([]),
  label: z.string().nullable().default(null),
  created_at: z.string(),
  revoked_at: z.string().nullable().default(null),
});

export const PortalSchema = z.object({
  name: z.string().min(1).max(100).default('Support'),
});

const PRIORITY = z.enum(['low', 'normal', 'high', 'urgent']);
const perPriority = (d: number) =>
  z
    .object({
      low: z
        .number()
        .int()
        .min(1)
        .max(525_600)
        .default(d * 4),
      normal: z
        .number()
        .int()
        .min(1)
        .max(525_600)
        .default(d * 2),
      high: z.number().int().min(1).max(525_600).default(d),
      urgent: z
        .number()
        .int()
        .min(1)
        .max(525_600)
        .default(Math.max(1, d / 4)),
    })
    .prefault({});

// Rules and escalation share actions (API.md "rules").
export const ActionSchema = z.object({
  type: z.enum(['set_priority', 'set_status', 'assign', 'add_tag', 'notify', 'webhook']),
  value: z.string().max(2000),
});
export const ConditionSchema = z.object({
  field: z.enum(['subject', 'message', 'email', 'category', 'priority', 'status', 'from_customer']),
  op: z.enum(['equals', 'not_equals', 'contains', 'starts_with', 'ends_with']),
  value: z.string().max(2000),
});

export const MacroSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  message: z.string().min(1).max(50_000),
  status: slug.nullable().optional(),
  priority: PRIORITY.nullable().optional(),
});
export const MacrosSchema = z
  .array(MacroSchema)
  .max(500)
  .superRefine(...uniqueBy('id', 'macro'));

export const RuleSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  enabled: z.boolean().default(true),
  event: z.enum(['ticket.created', 'ticket.replied', 'ticket.status_changed']),
  conditions: z.array(ConditionSchema).max(20).default([]),
  actions: z.array(ActionSchema).min(1).max(20),
});
export const RulesSchema = z
  .array(RuleSchema)
  .max(200)
  .superRefine(...uniqueBy('id', 'rule'));

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

export const WEBHOOK_EVENTS = [
  'ticket.created',
  'ticket.replied',
  'ticket.status_changed',
  'ticket.priority_changed',
  'ticket.assigned',
  'ticket.rated',
  'ticket.close_requested',
  'ticket.close_resolved',
  'ticket.deleted',
  'file.uploaded',
] as const;

export const WebhookSettingsSchema = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2000),
  /** Write-only: becomes this URL's entry in webhook_secrets; reads show secret_set. */
  secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  events: z.array(z.enum(WEBHOOK_EVENTS)).default([...WEBHOOK_EVENTS]),
});
export const ModuleSchema = z.discriminatedUnion('name', [
  z.object({ name: z.literal('webhooks'), enabled: z.boolean(), settings: WebhookSettingsSchema.optional() }),
  z.object({
    name: z.enum(['kb', 'uploads', 'rating', 'close_request']),
    enabled: z.boolean(),
    settings: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export const ModulesSchema = z
  .array(ModuleSchema)
  .max(10)
  .superRefine(...uniqueBy('name', 'module'))
  .refine((list) => list.every((m) => m.name !== 'webhooks' || !m.enabled || m.settings?.url), {
    message: 'an enabled webhooks module needs settings.url',
  });
export const DEFAULT_MODULES: z.infer<typeof ModulesSchema> = [
  { name: 'kb', enabled: true },
  { name: 'uploads', enabled: true },
  { name: 'rating', enabled: true },
  { name: 'close_request', enabled: true },
  { name: 'webhooks', enabled: false },
];

const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time like 09:00');
const interval = z
  .object({ open: timeOfDay, close: timeOfDay })
  .refine((i) => i.open < i.close, { message: 'close must be after open', path: ['close'] });
const day = z.array(interval).max(6).default([]);
export const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const DesignSchema = z.object({
  title: z.string().min(1).max(60).default('Support'),
  greeting: z.string().min(1).max(300).default('Hi! How can we help?'),
  primary_color: hexColor.default('#2563eb'),
  position: z.enum(['bottom-right', 'bottom-left']).default('bottom-right'),
  theme: z.enum(['auto', 'light', 'dark']).default('auto'),
  launcher_label: z.string().min(1).max(60).nullable().default(null),
  logo_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .nullable()
    .default(null),
  locale: z.enum(['en', 'de']).default('en'),
});

export const SlaSchema = z.object({
  enabled: z.boolean().default(false),
  business_hours_only: z.boolean().default(false),
  first_response_minutes: perPriority(240),
  resolution_minutes: perPriority(1440),
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
      'Hi {{name}},\n\nthank you for writing. We will answer as soon as we can.\nYour ticket number is {{ticket_id}}.',
    ),
  outside_hours_message: z.string().max(10_000).nullable().default(null),
});

export const AutocloseSchema = z.object({
  enabled: z.boolean().default(false),
  after_days: z.number().int().min(1).max(365).default(7),
  statuses: z.array(slug).max(50).default(['answered']),
});

const cidrOrIp = z.string().refine((v) => isIpOrCidr(v), 'must be an IP address or a CIDR range');
export const BlocklistsSchema = z.object({
  emails: z.array(z.string().trim().toLowerCase().pipe(z.email())).max(10_000).default([]),
  domains: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a domain like spam.example'),
    )
    .max(10_000)
    .default([]),
  ips: z.array(cidrOrIp).max(10_000).default([]),
  keywords: z.array(z.string().trim().min(1).max(200)).max(1000).default([]),
});

export const BusinessHoursSchema = z.object({
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone like Europe/Berlin').default('UTC'),
  days: z.object({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }).prefault({}),
  holidays: z.array(z.iso.date()).max(366).default([]),
});

export const FormSchema = z.object({
  require_category: z.boolean().default(false),
  show_page_url: z.boolean().default(true),
  privacy_notice: z.string().max(2000).nullable().default(null),
  allow_attachments: z.boolean().default(true),
});

export const SmtpSchema = z.object({
  host: z.string().max(255).nullable().default(null),
  port: z.number().int().min(1).max(65535).default(587),
  secure: z.boolean().default(false),
  user: z.string().max(255).nullable().default(null),
  /**
   * Write-only. Omitted keeps the stored one while host, port and user stay the same (a changed
   * destination forgets it: admin/secrets.ts); null or "" removes it.
   */
  pass: z.string().max(1000).nullable().optional(),
  /**
   * Skips checking the server's TLS certificate (a self-signed internal relay). Off: a certificate that
   * does not verify stops the delivery, so a password never goes to a server that is not the one named.
   */
  allow_invalid_certificate: z.boolean().default(false),
});
export const EmailNotifySchema = z.object({
  customer_on_create: z.boolean().default(true),
  customer_on_reply: z.boolean().default(true),
  agents_on_create: z.boolean().default(false),
  agents_on_customer_reply: z.boolean().default(false),
  agent_emails: z.array(z.email()).max(100).default([]),
});
export const MailSchema = z.object({
  from_name: z
    .string()
    .max(100)
    .refine((s) => !/[\r\n]/.test(s), 'must be on one line')
    .default('Support'),
  from_address: z.email().nullable().default(null),
  smtp: SmtpSchema.prefault({}),
  email_notify: EmailNotifySchema.prefault({}),
});

export const TurnstileSchema = z.object({
  enabled: z.boolean().default(false),
  site_key: z.string().max(200).nullable().default(null),
  /** Write-only; reads show secret_set. */
  secret: z.string().max(200).nullable().optional(),
});

/** What /admin accepts for an agent. Passwords, two-factor secrets and passkeys go in, never out. */
export const AgentInputSchema = z.object({
  id: z.string().max(100).optional(),
  name: z.string().trim().min(1).max(200),
  email: z.email().max(254),
  role: z.enum(['admin', 'agent']).default('agent'),
  active: z.boolean().default(true),
  password: z.string().min(10, 'must be at least 10 characters').max(200).optional(),
  two_factor_secret: z.string().min(16).max(200).nullable().optional(),
  passkeys: z
    .array(z.object({ id: z.string().min(1).max(500), public_key: z.string().min(1).max(5000) }))
    .max(20)
    .optional(),
});

export const StoredAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'agent']).default('agent'),
  active: z.boolean().default(true),
  password_hash: z.string().nullable().default(null),
  two_factor_secret: z.string().nullable().default(null),
  passkeys: z.array(z.object({ id: z.string(), public_key: z.string() })).default([]),
  created_at: z.string(),
});

export const ArticleInputSchema = z.object({
  id: z.string().max(100).optional(),
  title: z.string().trim().min(1).max(300),
  body: z.string().max(100_000).default(''),
  published: z.boolean().default(false),
});
export const ArticleSchema = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  published: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A webhook URL's signing secret (see webhook-secrets.ts); never in an answer but once, when generated. */
export const WebhookSecretSchema = z.object({ url: z.string(), secret: z.string() });
/** What /admin r=webhook_secrets accepts: a secret for a URL in use, or none to have a new one generated. */
export const WebhookSecretInputSchema = z.object({
  url: z.string().min(1).max(2000),
  secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
});

/**
 * config.json: parsed through this on every start and every write, so a missing resource takes its
 * default and every webhook URL has its secret.
 */
export const ConfigDataSchema = z
  .object({
    version: z.literal(1).default(1),
    portal: PortalSchema.prefault({}),
    keys: z.array(StoredKeySchema).default([]),
    categories: CategoriesSchema.default([]),
    statuses: StatusesSchema.default(DEFAULT_STATUSES),
    macros: MacrosSchema.default([]),
    rules: RulesSchema.default([]),
    tags: TagsSchema.default([]),
    escalation: EscalationsSchema.default([]),
    modules: ModulesSchema.default(DEFAULT_MODULES),
    design: DesignSchema.prefault({}),
    sla: SlaSchema.prefault({}),
    autoreply: AutoreplySchema.prefault({}),
    autoclose: AutocloseSchema.prefault({}),
    blocklists: BlocklistsSchema.prefault({}),
    business_hours: BusinessHoursSchema.prefault({}),
    form: FormSchema.prefault({}),
    mail: MailSchema.prefault({}),
    turnstile: TurnstileSchema.prefault({}),
    agents: z.array(StoredAgentSchema).default([]),
    kb: z.array(ArticleSchema).default([]),
    webhook_secrets: z.array(WebhookSecretSchema).default([]),
  })
  .transform(withWebhookSecrets);

export type ConfigData = z.infer<typeof ConfigDataSchema>;
export type StoredKey = z.infer<typeof StoredKeySchema>;
export type StoredAgent = z.infer<typeof StoredAgentSchema>;
export type Article = z.infer<typeof ArticleSchema>;
