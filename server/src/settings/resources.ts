import { z } from 'zod';
import { ApiError, type ErrorDetail } from '../http/errors.js';
import { validate } from '../http/validate.js';
import {
  AssignmentSchema,
  AutocloseSchema,
  AutoreplySchema,
  BlocklistsSchema,
  BusinessHoursSchema,
  CategoriesSchema,
  DesignSchema,
  EscalationsSchema,
  FormSchema,
  IdentitySchema,
  IdentityViewSchema,
  MacrosSchema,
  MailSchema,
  MailViewSchema,
  ModulesSchema,
  ModulesViewSchema,
  RulesSchema,
  SlaSchema,
  StatusesSchema,
  TagsSchema,
  TurnstileSchema,
  TurnstileViewSchema,
  WorkflowSchema,
  createdSecrets,
  type ConfigData,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { checkReferences, statusUsesInConfig } from './references.js';
import { withDkimKey, withIdentitySecret, withImapPass, withSmtpPass, withTurnstileSecret } from './secrets.js';
import { identityView, mailView, modulesView, turnstileView } from './views.js';

/** What a write may need to know beyond the configuration. */
export interface WriteContext {
  /** Tickets (live and test) that still have a status. */
  ticketsWithStatus(status: string): Promise<number>;
  /** TICKETING_WEBHOOKS_ALLOW_LOCAL: webhook URLs may name local addresses. */
  allowLocalWebhooks: boolean;
}

/** What a write made: the configuration, and the webhook secrets it generated (shown this once). */
export interface Written {
  data: ConfigData;
  created: { url: string; secret: string }[];
}

/**
 * A configuration resource of /admin: how it is read, and how a write of it is checked and stored.
 * `list` resources are replaced whole from `{ "<name>": [ … ] }`; `object` resources are written whole
 * from the object itself (omitted fields take their defaults, omitted secrets are kept).
 */
export interface ConfigResource {
  kind: 'list' | 'object';
  /** What a POST body must be. */
  input: z.ZodType;
  /** What a read answers for it. */
  view: z.ZodType;
  read(data: ConfigData): unknown;
  /** Validates `body` (400), keeps write-only secrets, checks what it refers to (400, 409), writes. */
  write(store: ConfigStore, body: Record<string, unknown>, context: WriteContext): Promise<Written>;
}

type Name = Exclude<keyof ConfigData, 'version' | 'portal' | 'keys' | 'agents' | 'kb' | 'mail_token_secret'>;

const invalid = (details: ErrorDetail[]) =>
  new ApiError(400, 'validation_failed', `${details[0]!.param}: ${details[0]!.message}`, {
    param: details[0]!.param,
    details,
  });

function resource<K extends Name>(
  name: K,
  kind: 'list' | 'object',
  schema: z.ZodType<ConfigData[K]>,
  options: {
    /** The read form, when it differs from the stored one (write-only secrets). */
    view?: { schema: z.ZodType; read(data: ConfigData): unknown };
    /** Makes the stored value from the one written: keeps write-only secrets (settings/secrets.ts). */
    prepare?(next: ConfigData[K], current: ConfigData): ConfigData[K];
    /** A check against the tickets, before anything is written. */
    check?(next: ConfigData[K], current: ConfigData, context: WriteContext): Promise<void>;
    /** Webhook URLs the write gives a secret itself (not reported as generated). */
    givesSecrets?(value: ConfigData[K]): string[];
  } = {},
): ConfigResource {
  return {
    kind,
    input: kind === 'list' ? z.object({ [name]: schema }) : schema,
    view: options.view?.schema ?? schema,
    read: (data) => (options.view ? options.view.read(data) : data[name]),
    async write(store, body, context) {
      const given = kind === 'list' ? validate(schema, body[name], name) : validate(schema, body);
      const current = store.get();
      await options.check?.(given, current, context);
      const value = options.prepare ? options.prepare(given, current) : given;
      const refs = checkReferences(name, { ...current, [name]: value }, context);
      if (refs.length) throw invalid(refs);
      const data = await store.update((d) => {
        d[name] = value;
      });
      // A webhook URL new to the configuration got a secret: this answer is the one place it is shown.
      return { data, created: createdSecrets(current, data, new Set(options.givesSecrets?.(value) ?? [])) };
    },
  };
}

/** A status list may not drop a status that tickets or the configuration still use (409 status_in_use). */
async function statusesInUse(next: ConfigData['statuses'], current: ConfigData, context: WriteContext) {
  const kept = new Set(next.map((s) => s.id));
  const details: ErrorDetail[] = [];
  for (const s of current.statuses) {
    if (kept.has(s.id)) continue;
    const tickets = await context.ticketsWithStatus(s.id);
    if (tickets) details.push({ param: 'statuses', message: `"${s.id}" is still the status of ${tickets} ticket(s)` });
    const uses = statusUsesInConfig(current, s.id);
    if (uses.length) details.push({ param: 'statuses', message: `"${s.id}" is still used by ${uses.join(', ')}` });
  }
  if (details.length) throw new ApiError(409, 'status_in_use', details[0]!.message, { param: 'statuses', details });
}

/** The configuration resources of /admin, in the order `r=all` lists them. */
export const CONFIG_RESOURCES = {
  categories: resource('categories', 'list', CategoriesSchema),
  statuses: resource('statuses', 'list', StatusesSchema, { check: statusesInUse }),
  macros: resource('macros', 'list', MacrosSchema),
  rules: resource('rules', 'list', RulesSchema),
  tags: resource('tags', 'list', TagsSchema),
  escalation: resource('escalation', 'list', EscalationsSchema),
  modules: resource('modules', 'list', ModulesSchema, {
    view: { schema: ModulesViewSchema, read: modulesView },
    givesSecrets: (modules) =>
      modules.flatMap((m) => (m.name === 'webhooks' && m.settings?.secret !== undefined ? [m.settings.url] : [])),
  }),
  design: resource('design', 'object', DesignSchema),
  sla: resource('sla', 'object', SlaSchema),
  autoreply: resource('autoreply', 'object', AutoreplySchema),
  autoclose: resource('autoclose', 'object', AutocloseSchema),
  workflow: resource('workflow', 'object', WorkflowSchema),
  blocklists: resource('blocklists', 'object', BlocklistsSchema),
  business_hours: resource('business_hours', 'object', BusinessHoursSchema),
  form: resource('form', 'object', FormSchema),
  mail: resource('mail', 'object', MailSchema, {
    view: { schema: MailViewSchema, read: (data) => mailView(data.mail) },
    prepare: (next, current) => ({
      ...next,
      smtp: withSmtpPass(next.smtp, current.mail.smtp),
      inbound: { ...next.inbound, imap: withImapPass(next.inbound.imap, current.mail.inbound.imap) },
      dkim: withDkimKey(next.dkim, current.mail.dkim),
    }),
  }),
  turnstile: resource('turnstile', 'object', TurnstileSchema, {
    view: { schema: TurnstileViewSchema, read: (data) => turnstileView(data.turnstile) },
    prepare: (next, current) => withTurnstileSecret(next, current.turnstile),
  }),
  identity: resource('identity', 'object', IdentitySchema, {
    view: { schema: IdentityViewSchema, read: (data) => identityView(data.identity) },
    prepare: (next, current) => withIdentitySecret(next, current.identity),
    // Requiring verified customers without a secret to verify them with would lock every customer out.
    async check(next, current) {
      if (next.required && !withIdentitySecret(next, current.identity).secret) {
        throw invalid([{ param: 'secret', message: 'is required while required is true' }]);
      }
    },
  }),
  assignment: resource('assignment', 'object', AssignmentSchema),
} satisfies Record<string, ConfigResource>;

export type ConfigResourceName = keyof typeof CONFIG_RESOURCES;
export const CONFIG_RESOURCE_NAMES = Object.keys(CONFIG_RESOURCES) as ConfigResourceName[];
export const isConfigResource = (r: string): r is ConfigResourceName => Object.hasOwn(CONFIG_RESOURCES, r);
