import { z } from 'zod';
import { emailAddress, isoTime } from './common.js';
import { TicketListItemSchema } from './tickets.js';

/** A note about a customer (not a ticket): every agent sees it beside each of that customer's tickets. */
export const CustomerNoteSchema = z
  .strictObject({
    id: z.string().describe('cno_…'),
    text: z.string(),
    author_id: z.string().nullable().describe('the agent who wrote or last changed it; null for a secret key'),
    author: z.string().nullable(),
    created_at: isoTime,
    updated_at: isoTime,
  })
  .meta({ id: 'CustomerNote' });
export type CustomerNote = z.infer<typeof CustomerNoteSchema>;

/** GET /v1/customers: who the customer is, their recent tickets and the team's notes about them. */
export const CustomerSchema = z
  .strictObject({
    email: z.string(),
    name: z.string().nullable().describe('the name on their newest ticket; null when they have none'),
    verified: z
      .boolean()
      .describe('they read a recent ticket signed in at the shop (its signed identity, /admin r=identity)'),
    tickets: z.array(TicketListItemSchema).describe('their newest tickets of the key’s mode, any status, at most 20'),
    total_tickets: z.number().int().min(0),
    notes: z.array(CustomerNoteSchema).describe('oldest first'),
  })
  .meta({ id: 'Customer' });
export type Customer = z.infer<typeof CustomerSchema>;

export const CustomerQuerySchema = z.object({ email: emailAddress().max(254) });

/** POST /v1/customers/notes: a new note, or (with `id`) a new text for one. */
export const CustomerNoteInputSchema = z.object({
  email: emailAddress().max(254),
  text: z.string().trim().min(1).max(5000),
  id: z.string().max(100).optional().describe('a note of this customer to change; absent: a new note'),
});

/** Where config.json keeps them: per lower-cased address, `test:`-prefixed for test mode's. */
export const CustomerNotesSchema = z.record(z.string(), z.array(CustomerNoteSchema));
