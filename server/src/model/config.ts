import { z } from 'zod';
import { withWebhookSecrets } from './webhook-secrets.js';
import { AssignmentSchema, StoredAgentSchema } from './agents.js';
import {
  AutocloseSchema,
  AutoreplySchema,
  EscalationsSchema,
  MacrosSchema,
  RulesSchema,
  SlaSchema,
  TagsSchema,
  WorkflowSchema,
} from './automation.js';
import { CustomerNotesSchema } from './customers.js';
import { IdentitySchema } from './identity.js';
import { randomToken } from './ids.js';
import { ArticleSchema } from './kb.js';
import { StoredKeySchema } from './keys.js';
import { MailSchema } from './mail.js';
import {
  BlocklistsSchema,
  BusinessHoursSchema,
  CategoriesSchema,
  DEFAULT_MODULES,
  DEFAULT_STATUSES,
  DesignSchema,
  FormSchema,
  ModulesSchema,
  PortalSchema,
  StatusesSchema,
  TurnstileSchema,
} from './portal.js';

/** A webhook URL's signing secret (see webhook-secrets.ts); never in an answer but once, when generated. */
export const WebhookSecretSchema = z.object({ url: z.string(), secret: z.string() });
/** What /admin r=webhook_secrets accepts: a secret for a URL in use, or none to have a new one generated. */
export const WebhookSecretInputSchema = z.object({
  url: z.string().min(1).max(2000),
  secret: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
});
/** r=webhook_secrets as read: which URLs have a secret and what uses them, never the secret. */
export const WebhookSecretViewSchema = z.object({
  url: z.string(),
  secret_set: z.literal(true),
  used_by: z.array(z.string()).describe('modules, rules.<id> or escalation.<id>'),
});

/**
 * A configuration from before `workflow` (issue 30): a support reply kept the status, and autoclose
 * was set to act on `answered`. Replies now leave tickets `pending` (waiting on the customer), so an
 * autoclose that acted on `answered` acts on `pending` too, or it would stop closing anything.
 */
function beforeWorkflow(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || 'workflow' in raw) return raw;
  const data = raw as { autoclose?: { statuses?: unknown }; statuses?: unknown };
  const statuses = data.autoclose?.statuses;
  if (!Array.isArray(statuses) || !statuses.includes('answered') || statuses.includes('pending')) return raw;
  const configured = Array.isArray(data.statuses) ? (data.statuses as { id?: unknown }[]) : DEFAULT_STATUSES;
  if (!configured.some((st) => st.id === 'pending')) return raw;
  return { ...data, autoclose: { ...data.autoclose, statuses: [...statuses, 'pending'] } };
}

/**
 * config.json: parsed through this on every start and every write, so a missing resource takes its
 * default and every webhook URL has its secret.
 */
const ConfigObjectSchema = z
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
    workflow: WorkflowSchema.prefault({}),
    blocklists: BlocklistsSchema.prefault({}),
    business_hours: BusinessHoursSchema.prefault({}),
    form: FormSchema.prefault({}),
    mail: MailSchema.prefault({}),
    turnstile: TurnstileSchema.prefault({}),
    identity: IdentitySchema.prefault({}),
    agents: z.array(StoredAgentSchema).default([]),
    assignment: AssignmentSchema.prefault({}),
    kb: z.array(ArticleSchema).default([]),
    webhook_secrets: z.array(WebhookSecretSchema).default([]),
    /** Notes about customers (/v1/customers/notes), per lower-cased address; never read through /admin. */
    customer_notes: CustomerNotesSchema.default({}),
    /**
     * Signs the reply addresses of outgoing mail (mail/threading.ts); made on first use, never read
     * through /admin.
     */
    mail_token_secret: z.string().nullable().default(null),
    /**
     * Signs the links in customer mails (links/magic-link.ts). Generated once (a configuration without
     * one is written back with it), never in any answer.
     */
    link_secret: z
      .string()
      .min(32)
      .default(() => randomToken(43)),
  })
  .transform(withWebhookSecrets);
export const ConfigDataSchema = z.preprocess(beforeWorkflow, ConfigObjectSchema);
export type ConfigData = z.infer<typeof ConfigDataSchema>;
