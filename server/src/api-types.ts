import { z } from 'zod';

// The public shapes of API.md as zod schemas, with their TypeScript types inferred. The OpenAPI
// document is generated from these; the widget imports the types with `import type`, so there is one
// source of truth for what crosses the wire and no zod in the bundle.

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const PrioritySchema = z.enum(PRIORITIES);
export type Priority = z.infer<typeof PrioritySchema>;

const time = z.string().describe('ISO 8601 UTC time, e.g. 2026-11-22T10:15:00.000Z');

export const AttachmentSchema = z
  .object({
    id: z.string().describe('fil_…'),
    ticket_id: z.string(),
    reply_id: z.string().nullable(),
    name: z.string(),
    size: z.number().int(),
    type: z.string(),
    created_at: time,
  })
  .meta({ id: 'Attachment' });
export type Attachment = z.infer<typeof AttachmentSchema>;

export const ReplySchema = z
  .object({
    id: z.string().describe('rpl_…'),
    message: z.string(),
    from_customer: z.boolean(),
    author: z.string().nullable(),
    created_at: time,
    attachments: z.array(AttachmentSchema),
  })
  .meta({ id: 'Reply' });
export type Reply = z.infer<typeof ReplySchema>;

export const CloseRequestSchema = z.object({ by: z.enum(['customer', 'agent']), requested_at: time });
export type CloseRequest = z.infer<typeof CloseRequestSchema>;

export const RatingSchema = z.object({
  score: z.number().int().min(1).max(5),
  comment: z.string().nullable(),
  rated_at: time,
});
export type Rating = z.infer<typeof RatingSchema>;

/** The full view (sk) and the record as stored on disk. */
export const TicketSchema = z
  .object({
    id: z.string().describe('tkt_…'),
    subject: z.string(),
    message: z.string(),
    name: z.string(),
    email: z.string(),
    status: z.string(),
    priority: PrioritySchema,
    category: z.string().nullable(),
    fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    page_url: z.string().nullable(),
    agent_id: z.string().nullable(),
    tags: z.array(z.string()),
    close_request: CloseRequestSchema.nullable(),
    rating: RatingSchema.nullable(),
    replies: z.array(ReplySchema),
    attachments: z.array(AttachmentSchema),
    due_at: time.nullable(),
    closed_at: time.nullable(),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: 'Ticket' });
export type Ticket = z.infer<typeof TicketSchema>;

/** What a public key sees. */
export const PublicTicketSchema = TicketSchema.omit({ agent_id: true, tags: true, due_at: true }).meta({
  id: 'PublicTicket',
});
export type PublicTicket = z.infer<typeof PublicTicketSchema>;

/** One row of /list. */
export const TicketListItemSchema = TicketSchema.omit({ message: true, replies: true, attachments: true })
  .extend({ reply_count: z.number().int(), last_reply_at: time.nullable() })
  .meta({ id: 'TicketListItem' });
export type TicketListItem = z.infer<typeof TicketListItemSchema>;

export interface ListPage<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

export type FieldType = 'text' | 'textarea' | 'number' | 'email' | 'url' | 'select' | 'checkbox' | 'date';

export interface CategoryField {
  id: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: string[] | undefined;
  placeholder?: string | null | undefined;
}

export interface Category {
  id: string;
  name: string;
  fields: CategoryField[];
}

export interface Status {
  id: string;
  name: string;
  closed: boolean;
  color: string | null;
}

export interface Meta {
  categories: Category[];
  statuses: Status[];
  priorities: Priority[];
}

export const MeSchema = z
  .object({
    key: z.object({
      kind: z.enum(['public', 'secret']),
      mode: z.enum(['live', 'test']),
      admin: z.boolean(),
      prefix: z.string(),
    }),
    portal: z.object({ name: z.string(), public_url: z.string() }),
    version: z.string(),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof MeSchema>;

export const KbListItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  excerpt: z.string(),
  published: z.boolean(),
  updated_at: time,
});
export type KbListItem = z.infer<typeof KbListItemSchema>;

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      param: z.string().optional(),
      details: z.array(z.object({ param: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' });
export type ApiErrorBody = z.infer<typeof ErrorBodySchema>;
