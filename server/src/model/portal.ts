import { z } from 'zod';
import { emailAddress, hexColor, httpUrl, ipOrCidr, isoTime, isTimeZone, slug, uniqueBy } from './common.js';
import { PrioritySchema, TICKET_EVENTS } from './tickets.js';

// What the portal is made of (categories, statuses, modules, design, hours, form, anti-abuse), as
// /admin stores it with its defaults (docs/api.md, "/admin"), and what customers' widgets read of it.

export const FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'url', 'select', 'checkbox', 'date'] as const;

export const FieldSchema = z
  .object({
    id: slug,
    label: z.string().min(1).max(200),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(200)).max(100).optional(),
    placeholder: z.string().max(200).nullable().optional(),
  })
  .refine((f) => f.type !== 'select' || (f.options?.length ?? 0) > 0, {
    message: 'a select field needs options',
    path: ['options'],
  });
export type CategoryField = z.infer<typeof FieldSchema>;

export const LOCALES = ['en', 'de', 'fr', 'es', 'ar'] as const;

/** The shop's own words in other languages, by language: the widget shows a visitor's where given. */
const translated = <T extends z.ZodObject>(words: T) =>
  z
    .partialRecord(z.enum(LOCALES), words)
    .optional()
    .describe('the same words in other languages, by language (en, de, fr, es, ar); what is left out stays as written');

export const CategorySchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  fields: z
    .array(FieldSchema)
    .max(50)
    .default([])
    .superRefine(...uniqueBy('id', 'field')),
  translations: translated(
    z.object({
      name: z.string().min(1).max(100).optional(),
      fields: z
        .record(
          slug,
          z.object({ label: z.string().min(1).max(200).optional(), placeholder: z.string().max(200).optional() }),
        )
        .optional()
        .describe('by field id'),
    }),
  ),
});
export type Category = z.infer<typeof CategorySchema>;
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
export type Status = z.infer<typeof StatusSchema>;
export const StatusesSchema = z
  .array(StatusSchema)
  .max(50)
  .superRefine(...uniqueBy('id', 'status'))
  .refine((list) => list.some((s) => !s.closed) && list.some((s) => s.closed), {
    message: 'needs at least one open and one closed status',
  });

export const DEFAULT_STATUSES: Status[] = [
  { id: 'open', name: 'Open', closed: false, color: '#2563eb' },
  { id: 'pending', name: 'Pending', closed: false, color: '#d97706' },
  { id: 'answered', name: 'Answered', closed: false, color: '#059669' },
  { id: 'closed', name: 'Closed', closed: true, color: '#6b7280' },
];

export const PortalSchema = z.object({
  name: z.string().min(1).max(100).default('Support'),
});

/** Modules a customer meets (the widget shows them); `webhooks` is server-side only. */
export const CUSTOMER_MODULES = ['kb', 'uploads', 'rating', 'close_request'] as const;
export type CustomerModule = (typeof CUSTOMER_MODULES)[number];
export type ModuleName = CustomerModule | 'webhooks';
/** What each switch turns off, for the 403 module_disabled a customer gets. */
export const MODULE_FEATURES: Record<ModuleName, string> = {
  kb: 'The knowledge base',
  uploads: 'Uploading files',
  rating: 'Rating',
  close_request: 'Asking to close a ticket',
  webhooks: 'Webhooks',
};

export const WebhookSettingsSchema = z.object({
  url: httpUrl().max(2000),
  /** Write-only: becomes this URL's entry in webhook_secrets; reads show secret_set. */
  secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  events: z.array(z.enum(TICKET_EVENTS)).default([...TICKET_EVENTS]),
});
export const ModuleSchema = z.discriminatedUnion('name', [
  z.object({ name: z.literal('webhooks'), enabled: z.boolean(), settings: WebhookSettingsSchema.optional() }),
  z.object({
    name: z.enum(CUSTOMER_MODULES),
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
export type Modules = z.infer<typeof ModulesSchema>;
export const DEFAULT_MODULES: Modules = [
  ...CUSTOMER_MODULES.map((name) => ({ name, enabled: true })),
  { name: 'webhooks', enabled: false },
];
/** The modules as /admin reads them: the webhook secret only as `secret_set`. */
export const ModulesViewSchema = z.array(
  z.discriminatedUnion('name', [
    z.object({
      name: z.literal('webhooks'),
      enabled: z.boolean(),
      settings: WebhookSettingsSchema.omit({ secret: true }).extend({ secret_set: z.boolean() }).optional(),
    }),
    ModuleSchema.options[1],
  ]),
);

/** A module missing from the list counts as off (docs/api.md, modules). */
export const moduleEnabled = (modules: Modules, name: ModuleName) => modules.some((m) => m.name === name && m.enabled);

export const DesignSchema = z.object({
  title: z.string().min(1).max(60).default('Support'),
  greeting: z.string().min(1).max(300).default('Hi! How can we help?'),
  primary_color: hexColor.default('#2563eb'),
  position: z.enum(['bottom-right', 'bottom-left']).default('bottom-right'),
  theme: z.enum(['auto', 'light', 'dark']).default('auto'),
  launcher_label: z.string().min(1).max(60).nullable().default(null),
  logo_url: httpUrl().max(2000).nullable().default(null),
  /** The widget's languages (widget/src/i18n): the one used when neither the page nor the browser names one. */
  locale: z.enum(LOCALES).default('en'),
  translations: translated(
    z.object({
      title: z.string().min(1).max(60).optional(),
      greeting: z.string().min(1).max(300).optional(),
      launcher_label: z.string().min(1).max(60).optional(),
    }),
  ),
});

/** Business hours per weekday, Monday first. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time like 09:00');
const interval = z
  .object({ open: timeOfDay, close: timeOfDay })
  .refine((i) => i.open < i.close, { message: 'close must be after open', path: ['close'] });
const day = z.array(interval).max(6).default([]);

export const BusinessHoursSchema = z.object({
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone like Europe/Berlin').default('UTC'),
  days: z
    .object(Object.fromEntries(WEEKDAYS.map((d) => [d, day])) as Record<(typeof WEEKDAYS)[number], typeof day>)
    .prefault({}),
  holidays: z.array(z.iso.date()).max(366).default([]),
});
export type BusinessHours = z.infer<typeof BusinessHoursSchema>;

/** Whether support is open at a moment, and when it opens next (hours/business-hours.ts, openState). */
export const OpenStateSchema = z.object({
  open_now: z.boolean(),
  next_open_at: isoTime.nullable(),
  timezone: z.string(),
});

/** POST /hours/now: the saved hours, or hours being edited, asked about now or another moment. */
export const HoursNowInputSchema = z.object({
  business_hours: BusinessHoursSchema.optional().describe('hours to try (unsaved ones); the saved hours when left out'),
  at: isoTime.optional().describe('the moment to ask about; now when left out'),
});
export const HoursNowSchema = OpenStateSchema.extend({ at: isoTime }).meta({ id: 'HoursNow' });
export type HoursNow = z.infer<typeof HoursNowSchema>;

export const FormSchema = z.object({
  require_category: z.boolean().default(false),
  show_page_url: z.boolean().default(true),
  privacy_notice: z.string().max(2000).nullable().default(null),
  allow_attachments: z.boolean().default(true),
});

export const BlocklistsSchema = z.object({
  emails: z.array(z.string().trim().toLowerCase().pipe(emailAddress())).max(10_000).default([]),
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
  ips: z.array(ipOrCidr).max(10_000).default([]),
  keywords: z.array(z.string().trim().min(1).max(200)).max(1000).default([]),
});
export type Blocklists = z.infer<typeof BlocklistsSchema>;

export const TurnstileSchema = z.object({
  enabled: z.boolean().default(false),
  site_key: z.string().max(200).nullable().default(null),
  /** Write-only; reads show secret_set. */
  secret: z.string().max(200).nullable().optional(),
});
export const TurnstileViewSchema = TurnstileSchema.omit({ secret: true }).extend({ secret_set: z.boolean() });

/**
 * r=limits: the rate limits and quotas in force. They are set by environment variables at start
 * (docs/api.md "Limits"), not through /admin: read-only here, so an admin sees them beside the blocklists.
 */
export const LimitsViewSchema = z.object({
  rate_limit: z.object({
    enabled: z.boolean().describe('TICKETING_RATE_LIMIT'),
    pk_per_minute: z.number().int(),
    pk_creates_per_10_minutes: z.number().int(),
    sk_per_minute: z.number().int(),
    key_failures_per_minute: z.number().int().describe('on even while rate limiting is off'),
  }),
  quotas: z.object({
    ticket_files: z.number().int(),
    ticket_bytes: z.number().int(),
    ticket_messages: z.number().int(),
    ticket_text_chars: z.number().int(),
    upload_bytes_per_hour: z.number().int(),
  }),
  customer_mail_per_hour: z.number().int(),
});
export type LimitsView = z.infer<typeof LimitsViewSchema>;

/** /widget-config: what the widget needs to draw itself. Never a secret. */
export const WidgetConfigSchema = z
  .object({
    design: DesignSchema,
    form: FormSchema,
    modules: z.object(
      Object.fromEntries(CUSTOMER_MODULES.map((m) => [m, z.boolean()])) as Record<CustomerModule, z.ZodBoolean>,
    ),
    categories: CategoriesSchema,
    turnstile: z.object({ enabled: z.boolean(), site_key: z.string().nullable() }),
    business_hours: OpenStateSchema,
    public_key: z.string().nullable().describe('the public key of this mode, for the widget (pk_…)'),
    mail: z
      .boolean()
      .describe('support’s replies reach the customer by mail (mail is set up and customer_on_reply is on)'),
    api_version: z.literal('v1'),
  })
  .meta({ id: 'WidgetConfig' });
export type WidgetConfig = z.output<typeof WidgetConfigSchema>;

/** /meta: what a form needs to offer (categories with their fields, statuses, priorities). */
export const MetaSchema = z
  .object({
    categories: CategoriesSchema,
    statuses: z.array(StatusSchema),
    priorities: z.array(PrioritySchema),
  })
  .meta({ id: 'Meta' });
export type Meta = z.output<typeof MetaSchema>;
