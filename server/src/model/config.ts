import { z } from 'zod';
import { StoredAgentSchema } from './agents.js';
import {
  AutocloseSchema,
  AutoreplySchema,
  EscalationsSchema,
  MacrosSchema,
  RulesSchema,
  SlaSchema,
  TagsSchema,
} from './automation.js';
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

/** config.json: parsed through this on every start, so a missing resource takes its default. */
export const ConfigDataSchema = z.object({
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
});
export type ConfigData = z.infer<typeof ConfigDataSchema>;
