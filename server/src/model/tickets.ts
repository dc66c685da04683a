import { z } from 'zod';
import { isoTime } from './common.js';

// The ticket as it crosses the wire, in its three views (full, public, list row). Answers are closed
// objects (additionalProperties: false in the OpenAPI document), so the tests that check every answer
// against the document also catch a field that should not be there, and a full view never passes for
// a public one.

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const PrioritySchema = z.enum(PRIORITIES);
export type Priority = z.infer<typeof PrioritySchema>;

/** Who asked for a ticket to be closed. */
export const CLOSE_REQUESTERS = ['customer', 'agent'] as const;

export const AttachmentSchema = z
  .strictObject({
    id: z.string().describe('fil_…'),
    ticket_id: z.string(),
    reply_id: z.string().nullable(),
    name: z.string(),
    size: z.number().int().min(0),
    type: z.string().describe('the Content-Type it is served with'),
    created_at: isoTime,
  })
  .meta({ id: 'Attachment' });
export type Attachment = z.infer<typeof AttachmentSchema>;

export const ReplySchema = z
  .strictObject({
    id: z.string().describe('rpl_…'),
    message: z.string(),
    from_customer: z.boolean(),
    author: z.string().nullable(),
    /** The agent whose console session wrote it (support's view only; customers see `author`). */
    agent_id: z.string().optional(),
    created_at: isoTime,
    attachments: z.array(AttachmentSchema),
  })
  .meta({ id: 'Reply' });
export type Reply = z.infer<typeof ReplySchema>;

export const CloseRequestSchema = z.strictObject({ by: z.enum(CLOSE_REQUESTERS), requested_at: isoTime });
export type CloseRequest = z.infer<typeof CloseRequestSchema>;

export const RatingSchema = z.strictObject({
  score: z.number().int().min(1).max(5),
  comment: z.string().nullable(),
  rated_at: isoTime,
});
export type Rating = z.infer<typeof RatingSchema>;

export const FieldValueSchema = z.union([z.string(), z.number(), z.boolean()]);

/** The full view (secret keys, webhooks). The stored record is this plus internal fields (store/). */
export const TicketSchema = z
  .strictObject({
    id: z.string().describe('tkt_…'),
    subject: z.string(),
    message: z.string(),
    name: z.string(),
    email: z.string(),
    status: z.string(),
    priority: PrioritySchema,
    category: z.string().nullable(),
    fields: z.record(z.string(), FieldValueSchema),
    page_url: z.string().nullable(),
    agent_id: z.string().nullable(),
    tags: z.array(z.string()),
    close_request: CloseRequestSchema.nullable(),
    rating: RatingSchema.nullable(),
    replies: z.array(ReplySchema),
    attachments: z.array(AttachmentSchema),
    due_at: isoTime.nullable(),
    closed_at: isoTime.nullable(),
    created_at: isoTime,
    updated_at: isoTime,
  })
  .meta({ id: 'Ticket' });
export type Ticket = z.infer<typeof TicketSchema>;

/** What a public key sees: no internal assignment, tags or SLA deadline. */
export const PublicTicketSchema = TicketSchema.omit({ agent_id: true, tags: true, due_at: true }).meta({
  id: 'PublicTicket',
});
export type PublicTicket = z.infer<typeof PublicTicketSchema>;

/** A ticket in the caller's view: exactly one of the two matches (both are closed objects). */
export const TicketViewSchema = z
  .xor([TicketSchema, PublicTicketSchema])
  .meta({ description: 'Ticket with a secret key, PublicTicket with a public key' });

/** One row of /list. */
export const TicketListItemSchema = TicketSchema.omit({ message: true, replies: true, attachments: true })
  .extend({ reply_count: z.number().int().min(0), last_reply_at: isoTime.nullable() })
  .meta({ id: 'TicketListItem' });
export type TicketListItem = z.infer<typeof TicketListItemSchema>;

/** The /list answer: a page of rows and where it sits. */
export const TicketListSchema = z.strictObject({
  data: z.array(TicketListItemSchema),
  total: z.number().int().min(0),
  limit: z.number().int().min(1).max(200),
  offset: z.number().int().min(0),
});

/** What happens to tickets: the events of rules, the audit log and webhooks. */
export const TICKET_EVENTS = [
  'ticket.created',
  'ticket.replied',
  'ticket.status_changed',
  'ticket.priority_changed',
  'ticket.assigned',
  'ticket.rated',
  'ticket.close_requested',
  'ticket.close_resolved',
  'ticket.deleted',
  'file.uploaded',
] as const;
export type TicketEventType = (typeof TICKET_EVENTS)[number];
