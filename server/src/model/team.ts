import { z } from 'zod';
import { AGENT_ROLES } from './agents.js';
import { MacroSchema, TagSchema } from './automation.js';
import { CategorySchema, StatusSchema } from './portal.js';

/**
 * A colleague as every agent sees them: enough to show a name and to assign a ticket. No email (an
 * inactive agent's address is nobody's business, an active one's is in their mails), no secret.
 */
export const TeamAgentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(AGENT_ROLES),
    active: z.boolean(),
  })
  .meta({ id: 'TeamAgent' });
export type TeamAgent = z.output<typeof TeamAgentSchema>;

/** GET /v1/team: what every agent may read, whatever their role (the console's names, macros, tags). */
export const TeamSchema = z
  .object({
    agents: z.array(TeamAgentSchema),
    macros: z.array(MacroSchema),
    tags: z.array(TagSchema),
    statuses: z.array(StatusSchema),
    categories: z.array(CategorySchema),
    reply_status: z
      .string()
      .nullable()
      .describe('/admin r=workflow reply_status: the status a reply sets when the agent picks none (null: kept)'),
  })
  .meta({ id: 'Team' });
export type Team = z.output<typeof TeamSchema>;
