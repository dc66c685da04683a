import { z } from 'zod';
import { formInt, optional } from '../http/coerce.js';
import { TicketListItemSchema } from '../model/index.js';

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(200)
    .describe(
      'a number (1042 or #1042), an id, an email, a name, or words of the subject, the messages, the notes or a tag; each word matches the words it begins',
    ),
  limit: optional(formInt({ min: 1, digits: '^0*[1-9][0-9]{0,14}$' }))
    .transform((n) => Math.min(n ?? 25, 100))
    .describe('1 or more (default 25); above 100 counts as 100'),
  cursor: optional(z.string().max(40)).describe('`next_cursor` of the page before'),
});

export const SearchResultsSchema = z
  .strictObject({
    data: z.array(TicketListItemSchema),
    total: z.number().int().min(0).describe('how many tickets match in all (with `total_capped`: at least)'),
    total_capped: z
      .literal(true)
      .optional()
      .describe('present when only the newest matches were ranked and counted: `total` is a lower bound'),
    next_cursor: z.string().nullable().describe('for the next page; null on the last'),
  })
  .meta({ id: 'SearchResults' });
