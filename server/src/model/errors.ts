import { z } from 'zod';
import { ReplySchema } from './tickets.js';

/** Every error answer (docs/api.md, "Errors"). */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('for programs, e.g. validation_failed'),
      message: z.string().describe('for people'),
      param: z.string().optional().describe('the first field that is wrong'),
      details: z.array(z.object({ param: z.string(), message: z.string() })).optional(),
      messages: z
        .array(ReplySchema)
        .optional()
        .describe('409 ticket_changed only: the messages (replies and notes) newer than seen_message_id, oldest first'),
    }),
  })
  .meta({ id: 'Error' });
export type ApiErrorBody = z.infer<typeof ErrorBodySchema>;
