import { z } from 'zod';
import { isoTime } from './common.js';

/**
 * /admin r=identity: the shop signs its signed-in customers' email addresses with `secret`
 * (hex HMAC-SHA256), and a widget that presents a right signature is that customer. `required`: public
 * keys may touch tickets only as a verified customer.
 */
export const IdentitySchema = z.object({
  /** Write-only; reads show secret_set. */
  secret: z.string().min(32, 'must be at least 32 characters').max(200).nullable().optional(),
  required: z.boolean().default(false),
});
export const IdentityViewSchema = IdentitySchema.omit({ secret: true }).extend({ secret_set: z.boolean() });

/** The request header that carries a signed identity: `<hex signature>.<email, percent-encoded>`. */
export const IDENTITY_HEADER = 'X-Ticketing-Identity';

/** One of a customer's tickets as the customer's own lists show it: no internals, no text. */
export const CustomerTicketSchema = z
  .strictObject({
    id: z.string(),
    subject: z.string(),
    status: z.string(),
    created_at: isoTime,
    updated_at: isoTime,
    /** Replies from support: the widget counts what is unread against what it has seen. */
    support_replies: z.number().int().min(0),
    last_reply_at: isoTime.nullable(),
  })
  .meta({ id: 'CustomerTicket' });
export type CustomerTicket = z.infer<typeof CustomerTicketSchema>;

export const CustomerTicketListSchema = z.strictObject({
  email: z.string(),
  data: z.array(CustomerTicketSchema),
});

/** A watched ticket in GET /updates: the customer's view and how many of support's replies are unread. */
export const WatchedTicketSchema = CustomerTicketSchema.extend({ unread: z.number().int().min(0) }).meta({
  id: 'WatchedTicket',
});

/** GET /updates: the unread total (what the launcher's badge shows) and each watched ticket. */
export const UpdatesSchema = z.strictObject({
  unread: z.number().int().min(0),
  data: z.array(WatchedTicketSchema),
});
