import {
  AutocloseSchema,
  AutoreplySchema,
  BlocklistsSchema,
  BusinessHoursSchema,
  CategoriesSchema,
  DesignSchema,
  EscalationsSchema,
  FormSchema,
  MacrosSchema,
  MailSchema,
  ModulesSchema,
  RulesSchema,
  SlaSchema,
  StatusesSchema,
  TagsSchema,
  TurnstileSchema,
} from './schema.js';

/** Replaced whole on POST: `{ "<name>": [ … ] }`. */
export const LIST_RESOURCES = {
  categories: CategoriesSchema,
  statuses: StatusesSchema,
  macros: MacrosSchema,
  rules: RulesSchema,
  tags: TagsSchema,
  escalation: EscalationsSchema,
  modules: ModulesSchema,
} as const;

/** Written whole on POST: omitted fields take their defaults, omitted secrets are kept. */
export const OBJECT_RESOURCES = {
  design: DesignSchema,
  sla: SlaSchema,
  autoreply: AutoreplySchema,
  autoclose: AutocloseSchema,
  blocklists: BlocklistsSchema,
  business_hours: BusinessHoursSchema,
  form: FormSchema,
  mail: MailSchema,
  turnstile: TurnstileSchema,
} as const;

export const ENTRY_RESOURCES = ['agents', 'kb'] as const;
/** Read-only records, newest first, with `limit`: the audit log, webhook attempts, the mail and webhook outbox. */
export const LOG_RESOURCES = ['audit', 'webhook_log', 'outbox'] as const;

/**
 * One signing secret per webhook URL, kept in step with the URLs by every write: reads list the URLs,
 * a POST sets or rotates one URL's secret.
 */
export const WEBHOOK_SECRETS = 'webhook_secrets';

/** Everything `r=all` answers: every resource but the two logs. */
export const ALL_RESOURCES = [
  ...Object.keys(LIST_RESOURCES),
  ...Object.keys(OBJECT_RESOURCES),
  ...ENTRY_RESOURCES,
  WEBHOOK_SECRETS,
  'priorities',
] as const;

export type ListResource = keyof typeof LIST_RESOURCES;
export type ObjectResource = keyof typeof OBJECT_RESOURCES;

export const isList = (r: string): r is ListResource => Object.hasOwn(LIST_RESOURCES, r);
export const isObject = (r: string): r is ObjectResource => Object.hasOwn(OBJECT_RESOURCES, r);
export const isKnown = (r: string) =>
  r === 'all' || (ALL_RESOURCES as readonly string[]).includes(r) || (LOG_RESOURCES as readonly string[]).includes(r);
