import { z } from 'zod';
import { CLOSE_REQUESTERS, HTTP_URL, httpUrl, INBOX_VIEWS, LIST_SORTS, PRIORITIES } from '../model/index.js';
import { parseJson } from '../http/body.js';
import { withFastPath } from '../http/validate.js';
import { email, formBool, formInt, id, longText, optional, singleLine } from '../http/coerce.js';

const MESSAGE_MAX = 50_000;

/** `fields` arrives as an object (JSON, bracket keys) or as a JSON string in a form. */
const fieldsInput = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return parseJson(v);
    } catch {
      return v;
    }
  },
  z.record(z.string(), z.unknown(), 'must be an object of field values'),
);

export const CreateInput = z.object({
  name: singleLine(200),
  email,
  subject: singleLine(300),
  message: longText(MESSAGE_MAX),
  category: optional(z.string().trim().max(32)),
  fields: optional(fieldsInput),
  page_url: optional(
    z
      .string()
      .trim()
      .max(2048)
      .meta({ ...HTTP_URL, pattern: `^\\s*${HTTP_URL.pattern.slice(1)}` })
      .pipe(httpUrl()),
  ),
  'cf-turnstile-response': optional(z.string()).describe('the Turnstile token, when Turnstile is on (customers)'),
});

export const ListQuery = z.object({
  status: optional(z.string().max(32)),
  category: optional(z.string().max(32)),
  priority: optional(z.enum(PRIORITIES)),
  agent_id: optional(z.string().max(100)),
  email: optional(z.string().max(254)),
  tag: optional(z.string().max(100)),
  q: optional(z.string().max(200)).describe('a case-insensitive substring of subject, name, email, message or a reply'),
  view: optional(z.enum(INBOX_VIEWS, `must be one of ${INBOX_VIEWS.join(', ')}`)).describe(
    'an inbox view; `mine` and `mentions` need a signed-in agent',
  ),
  sort: optional(z.enum(LIST_SORTS, `must be one of ${LIST_SORTS.join(', ')}`))
    .transform((s) => s ?? 'created')
    .describe('created (newest first, the default), activity (latest first), due (nearest first), priority'),
  // Above 200 is clamped (a generous client is not wrong); below 1 or not whole is a mistake.
  limit: optional(formInt({ min: 1, digits: '^0*[1-9][0-9]{0,14}$' }))
    .transform((n) => Math.min(n ?? 50, 200))
    .describe('1 or more (default 50); above 200 counts as 200'),
  offset: optional(formInt({ min: 0, digits: '^[0-9]{1,15}$', message: 'must not be negative' }))
    .transform((n) => n ?? 0)
    .describe('0 or more (default 0)'),
});

/**
 * The proof a public key gives for the ticket it names (tickets/lookup.ts checks it): required with a
 * public key, ignored with a secret key.
 */
export const ownerEmail = optional(z.string().max(254)).describe(
  "the ticket's email: required with a public key (a wrong one answers 404 ticket_not_found)",
);

/** The highest ticket number (PostgreSQL's int). */
const NUMBER_MAX = 2_147_483_647;

/**
 * GET /ticket's query. Its fast path (http/validate.ts) is what zod answers for a query of strings
 * within the limits: `id` trimmed, `email` kept when given ("" means not given), other names dropped;
 * a query by `number` takes zod's way.
 */
export const TicketQuery = withFastPath(
  z.object({
    id: optional(id).describe('tkt_…: the ticket, or give `number`'),
    number: optional(formInt({ min: 1, max: NUMBER_MAX, digits: '^[0-9]{1,10}$' })).describe(
      'the ticket’s number (1042 for #1042), instead of `id`',
    ),
    email: ownerEmail,
    messages_limit: optional(formInt({ min: 1, max: 200, digits: '^0*([1-9][0-9]?|1[0-9]{2}|200)$' })).describe(
      'a page of the thread: the newest this many replies (before `messages_before`), with `older_replies`; without it and `messages_before`, every reply',
    ),
    messages_before: optional(z.string().min(1).max(100)).describe(
      'a reply id (`older_replies.cursor`): the page ends just before it (50 replies unless `messages_limit` says)',
    ),
  }),
  (input) => {
    if (typeof input !== 'object' || input === null) return undefined;
    const query = input as Record<string, unknown>;
    if ('number' in query) return undefined;
    if ('messages_limit' in query || 'messages_before' in query) return undefined; // a page: the schema reads it
    const given = query.id;
    if (typeof given !== 'string') return undefined;
    const ticketId = given.trim();
    if (ticketId.length < 1 || ticketId.length > 100) return undefined;
    if (!('email' in query)) return { id: ticketId };
    const proof = query.email;
    if (proof === undefined || proof === null || proof === '') return { id: ticketId, email: undefined };
    return typeof proof === 'string' && proof.length <= 254 ? { id: ticketId, email: proof } : undefined;
  },
);

export const ReplyInput = z.object({
  ticket_id: id,
  message: optional(longText(MESSAGE_MAX)),
  from_customer: optional(formBool),
  author: optional(singleLine(200)),
  macro: optional(z.string().max(32)),
  internal: optional(formBool).describe(
    'an internal note for staff (secret key or agent): never shown to the customer',
  ),
  email: ownerEmail,
  status: optional(z.string().trim().min(1, 'is required').max(32)).describe(
    'support: the status the ticket takes with the reply; without it, the macro’s status, else /admin ' +
      'r=workflow reply_status (pending by default)',
  ),
  seen_message_id: optional(z.string().trim().max(100)).describe(
    'support: the newest message the writer saw (a rpl_ id, or the ticket’s id for its own message); a newer ' +
      'reply or note makes it 409 ticket_changed with those messages, and nothing is stored',
  ),
  force: optional(formBool).describe('support: send even when newer messages came in since seen_message_id'),
});

export const SnoozeInput = z.object({
  ticket_id: id,
  until: z
    .union([z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }), z.null()], {
      error: 'must be an ISO 8601 time, or null to end the snooze',
    })
    .describe('when the ticket comes back to needs_reply (ISO 8601, in the future, within a year); null wakes it'),
});

export const StatusInput = z.object({ ticket_id: id, status: z.string().trim().min(1, 'is required').max(32) });
export const PriorityInput = z.object({
  ticket_id: id,
  priority: z.enum(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`),
});
// "" (a form's empty value) or null unassigns; a missing agent_id is a mistake, not an unassignment.
const agentId = z.preprocess((v) => (v === '' ? null : v), z.string().max(100).nullable());

export const AssignInput = z.object({
  ticket_id: id,
  agent_id: agentId,
});
/** DELETE /delete takes `ticket_id` in the query or in the body. */
export const DeleteInput = z.object({ ticket_id: optional(id) });
export const CloseRequestInput = z.object({
  ticket_id: id,
  by: optional(z.enum(CLOSE_REQUESTERS)),
  email: ownerEmail,
});
export const CloseResolveInput = z.object({ ticket_id: id, accept: formBool });
export const RateInput = z.object({
  ticket_id: id,
  score: formInt({ min: 1, max: 5, digits: '^0*[1-5]$', message: 'must be 1 to 5' }),
  comment: optional(z.string().max(2000, 'must be at most 2,000 characters')),
  email: ownerEmail,
});

/** Tag names: as /admin `tags` names them. A form sends a comma-separated list, JSON an array. */
const tagList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').filter((x) => x.trim() !== '') : v),
  z.array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters')).max(50),
);

export const TagsInput = z.object({
  ticket_id: id,
  add: optional(tagList),
  remove: optional(tagList),
});

export const BulkInput = z.object({
  ticket_ids: z.array(id).min(1, 'must name at least one ticket').max(100, 'at most 100 tickets at once'),
  set: z
    .object({
      status: optional(z.string().trim().max(32)),
      priority: optional(z.enum(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`)),
      agent_id: agentId.optional().describe('an agent id, or null to unassign'),
      add_tags: optional(tagList),
      remove_tags: optional(tagList),
    })
    // "Changes nothing" is 400 (tools.ts): at least one change, as the document can say it.
    .meta({ minProperties: 1 }),
});

export const MergeInput = z.object({
  ticket_id: id.describe('the ticket that is merged (it is closed, with merged_into)'),
  into_id: id.describe('the ticket that receives its messages and files: another ticket than ticket_id'),
});

export const SpamInput = z.object({
  ticket_id: id,
  block: optional(z.enum(['email', 'domain'], 'must be email or domain')).describe(
    "also block the sender's address or domain (blocklists)",
  ),
});
