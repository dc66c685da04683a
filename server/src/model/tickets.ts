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

/** Said of `quoted` on a reply and on the ticket's own message. */
const QUOTED =
  'a mail-born message only (staff only): the quoted history and signature set aside from the mail, ' +
  'shown collapsed under `message`; a public key never sees it';

/** What became of the mail that carried a support reply to the customer. */
const DELIVERY_STATES = ['queued', 'sent', 'failed', 'bounced'] as const;

const ReplyDeliverySchema = z
  .strictObject({
    state: z.enum(DELIVERY_STATES),
    at: isoTime.describe('when it entered this state'),
    error: z
      .string()
      .optional()
      .describe(
        '`failed`: why the last attempt did not go, in one line (the SMTP server’s refusal, or what to check); ' +
          '`bounced`: the bounce’s status code and diagnostic text',
      ),
    message_id: z
      .string()
      .optional()
      .describe('the Message-ID the mail went out with: a bounce that returns it marks the reply `bounced`'),
  })
  .meta({ id: 'ReplyDelivery' });
export type ReplyDelivery = z.infer<typeof ReplyDeliverySchema>;

export const ReplySchema = z
  .strictObject({
    id: z.string().describe('rpl_…'),
    message: z.string(),
    quoted: z.string().optional().describe(QUOTED),
    from_customer: z.boolean(),
    author: z.string().nullable(),
    /** The agent whose console session wrote it (support's view only; customers see `author`). */
    agent_id: z.string().optional(),
    created_at: isoTime,
    attachments: z.array(AttachmentSchema),
    internal: z
      .literal(true)
      .optional()
      .describe('an internal note (staff only): present only on notes, which a public key never sees'),
    mentions: z
      .array(z.string())
      .optional()
      .describe(
        'a note only (staff only): the agents (agt_…) its `@Name`s named when it was written, kept by id so a renamed agent still matches',
      ),
    unverified: z
      .literal(true)
      .optional()
      .describe(
        'a mail that claims to be from the customer but could not be verified (staff only): it reopened nothing ' +
          'and the customer never sees it',
      ),
    delivery: ReplyDeliverySchema.optional().describe(
      'a support reply mailed to the customer (staff only): `queued`, `sent`, or `failed` with the reason ' +
        '(the outbox keeps retrying for a day, so a failed mail may still become `sent`), or `bounced` when ' +
        'a bounce for its mail came back after it was sent; absent when no mail ' +
        'went (mail not set up, customer_on_reply off, test mode)',
    ),
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

/** Who did something, in a ticket's activity and in live events: an agent by id and name, anyone else by kind. */
export const ActorRefSchema = z
  .strictObject({
    kind: z.enum(['agent', 'key', 'customer', 'system']),
    id: z.string().optional(),
    name: z.string().optional(),
  })
  .meta({ id: 'ActorRef' });
export type ActorRef = z.infer<typeof ActorRefSchema>;

/** One change of a ticket's state (staff only), shown between its messages. */
export const ActivityEntrySchema = z
  .strictObject({
    id: z.string().describe('act_…'),
    type: z.enum([
      'status',
      'priority',
      'assignee',
      'tags',
      'close_request',
      'rating',
      'merged',
      'merged_from',
      'snoozed',
    ]),
    at: isoTime,
    actor: ActorRefSchema,
    from: z.unknown().optional(),
    to: z.unknown().optional(),
  })
  .meta({ id: 'ActivityEntry' });
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;

/** The full view (secret keys, webhooks). The stored record is this plus internal fields (store/). */
export const TicketSchema = z
  .strictObject({
    id: z.string().describe('tkt_…'),
    number: z
      .number()
      .int()
      .min(1)
      .describe('what people read and say (#1042): given in creation order per mode from 1001, never reused'),
    subject: z.string(),
    message: z.string(),
    quoted: z.string().optional().describe(QUOTED),
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
    activity: z
      .array(ActivityEntrySchema)
      .optional()
      .describe('changes of status, priority, assignee, tags, close request and rating, oldest first (staff only)'),
    merged_into: z
      .string()
      .optional()
      .describe('tkt_…: present once this ticket was merged into that one (/merge), which holds its messages'),
    snoozed_until: isoTime
      .nullable()
      .optional()
      .describe(
        'staff only: out of the needs_reply view until this time or the customer’s next message (/snooze); ' +
          'absent or null when not snoozed',
      ),
    older_replies: z
      .strictObject({
        count: z.number().int().min(1).describe('replies older than the first one in `replies`'),
        cursor: z.string().describe('pass as `messages_before` to read them'),
      })
      .nullable()
      .optional()
      .describe(
        'only on a read of a page of the thread (`messages_limit` or `messages_before`): the older replies the caller may read, or null when `replies` starts at the first',
      ),
  })
  .meta({ id: 'Ticket' });
export type Ticket = z.infer<typeof TicketSchema>;

/** What a public key sees: no internal assignment, tags or SLA deadline. */
export const PublicTicketSchema = TicketSchema.omit({
  agent_id: true,
  tags: true,
  due_at: true,
  activity: true,
  quoted: true,
  snoozed_until: true,
}).meta({
  id: 'PublicTicket',
});
export type PublicTicket = z.infer<typeof PublicTicketSchema>;

/** A ticket in the caller's view: exactly one of the two matches (both are closed objects). */
export const TicketViewSchema = z
  .xor([TicketSchema, PublicTicketSchema])
  .meta({ description: 'Ticket with a secret key, PublicTicket with a public key' });

/** The newest message of a ticket, for a list row (staff only: it may be an internal note). */
export const LastMessageSchema = z
  .strictObject({
    from_customer: z.boolean(),
    internal: z.boolean(),
    preview: z.string().describe('the start of the text, white space collapsed (at most 200 characters)'),
    at: isoTime,
  })
  .meta({ id: 'LastMessage' });
export type LastMessage = z.infer<typeof LastMessageSchema>;

/** One row of /list (and the `ticket` of a live event). */
export const TicketListItemSchema = TicketSchema.omit({
  message: true,
  replies: true,
  older_replies: true,
  attachments: true,
  activity: true,
})
  .extend({
    reply_count: z.number().int().min(0).describe('replies and internal notes'),
    last_reply_at: isoTime.nullable(),
    last_activity_at: isoTime.describe('the latest of updated_at and the newest reply or note'),
    waiting_on: z
      .enum(['us', 'customer'])
      .nullable()
      .describe('us: the customer spoke last (or nobody answered yet); customer: support did; null once closed'),
    last_message: LastMessageSchema.describe('the newest reply or note, or the ticket’s own message'),
    mentions: z
      .array(z.string())
      .optional()
      .describe('the agents (agt_…) a note of this ticket mentions (`@Name`), each once; absent when none'),
  })
  .meta({ id: 'TicketListItem' });
export type TicketListItem = z.infer<typeof TicketListItemSchema>;

/** The /list answer: a page of rows and where it sits. */
export const TicketListSchema = z.strictObject({
  data: z.array(TicketListItemSchema),
  total: z.number().int().min(0),
  limit: z.number().int().min(1).max(200),
  offset: z.number().int().min(0),
});

/**
 * The inbox's views (/list `view`, /counts): every one but `closed` and `all` holds open tickets only
 * (a status that is not `closed`); `mine` is the signed-in agent's; `snoozed` holds the tickets whose
 * snooze has not ended (they are out of `needs_reply` meanwhile); `mentions` holds those with a note
 * that names the signed-in agent (`@Name`).
 */
export const INBOX_VIEWS = [
  'needs_reply',
  'snoozed',
  'mine',
  'mentions',
  'unassigned',
  'due_soon',
  'overdue',
  'open',
  'closed',
  'all',
] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];
/** How /list orders its rows. */
export const LIST_SORTS = ['activity', 'created', 'due', 'priority'] as const;
export type ListSort = (typeof LIST_SORTS)[number];

/** /counts: tickets per view and per status (every configured status, and any other a ticket has). */
export const CountsSchema = z
  .strictObject({
    views: z.strictObject(
      Object.fromEntries(INBOX_VIEWS.map((v) => [v, z.number().int().min(0)])) as Record<InboxView, z.ZodNumber>,
    ),
    statuses: z.record(z.string(), z.number().int().min(0)),
  })
  .meta({ id: 'Counts' });
export type Counts = z.infer<typeof CountsSchema>;

/** Every view at zero: where both stores start their /counts sums. */
export const noViews = (): Counts['views'] => Object.fromEntries(INBOX_VIEWS.map((v) => [v, 0])) as Counts['views'];

/** /bulk: one result per ticket named, in the order named. */
export const BulkResultSchema = z
  .strictObject({
    results: z.array(
      z.strictObject({
        id: z.string(),
        ok: z.boolean(),
        ticket: TicketSchema.optional(),
        error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
      }),
    ),
  })
  .meta({ id: 'BulkResult' });

/** What happens to tickets: the events of rules, the audit log and webhooks. */
export const TICKET_EVENTS = [
  'ticket.created',
  'ticket.replied',
  'ticket.note_added',
  'ticket.status_changed',
  'ticket.priority_changed',
  'ticket.assigned',
  'ticket.tags_changed',
  'ticket.merged',
  'ticket.rated',
  'ticket.close_requested',
  'ticket.close_resolved',
  'ticket.deleted',
  'ticket.snoozed',
  'ticket.mentioned',
  'file.uploaded',
] as const;
export type TicketEventType = (typeof TICKET_EVENTS)[number];
