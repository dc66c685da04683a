import { z } from 'zod';
import { ReplySchema } from './tickets.js';

/** Every error answer (docs/api.md, "Errors"). */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('for programs, e.g. validation_failed'),
      message: z.string().describe('for people'),
      param: z.string().optional().describe('the first field that is wrong'),
      details: z
        .array(
          z.object({
            param: z.string(),
            message: z.string(),
            code: z
              .string()
              .optional()
              .describe(
                'what is wrong, for programs: required, too_short, too_long, too_small, too_big, too_few, too_many, invalid_format, invalid_choice, invalid_type, duplicate',
              ),
            limit: z.number().optional().describe('the bound broken (too_*), where there is one'),
            value: z.string().optional().describe('duplicate: the repeated value; invalid_format: the format'),
          }),
        )
        .optional(),
      messages: z
        .array(ReplySchema)
        .optional()
        .describe('409 ticket_changed only: the messages (replies and notes) newer than seen_message_id, oldest first'),
    }),
  })
  .meta({ id: 'Error' });
export type ApiErrorBody = z.infer<typeof ErrorBodySchema>;
