import { z } from 'zod';
import { CLOSE_REQUESTERS, PRIORITIES } from '../model/index.js';
import { parseJson } from '../http/body.js';
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
      .pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' })),
  ),
});

export const ListQuery = z.object({
  status: optional(z.string().max(32)),
  category: optional(z.string().max(32)),
  priority: optional(z.enum(PRIORITIES)),
  agent_id: optional(z.string().max(100)),
  email: optional(z.string().max(254)),
  tag: optional(z.string().max(100)),
  q: optional(z.string().max(200)),
  // Above 200 is clamped (a generous client is not wrong); below 1 or not whole is a mistake.
  limit: optional(formInt.pipe(z.number().min(1, 'must be at least 1'))).transform((n) => Math.min(n ?? 50, 200)),
  offset: optional(formInt.pipe(z.number().min(0, 'must not be negative'))).transform((n) => n ?? 0),
});

/**
 * The proof a public key gives for the ticket it names (tickets/lookup.ts checks it): required with a
 * public key, ignored with a secret key.
 */
export const ownerEmail = optional(z.string().max(254)).describe(
  "the ticket's email: required with a public key (a wrong one answers 404 ticket_not_found)",
);

export const TicketQuery = z.object({ id, email: ownerEmail });

export const ReplyInput = z.object({
  ticket_id: id,
  message: optional(longText(MESSAGE_MAX)),
  from_customer: optional(formBool),
  author: optional(singleLine(200)),
  macro: optional(z.string().max(32)),
  email: ownerEmail,
});

export const StatusInput = z.object({ ticket_id: id, status: z.string().trim().min(1, 'is required').max(32) });
export const PriorityInput = z.object({
  ticket_id: id,
  priority: z.enum(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`),
});
export const AssignInput = z.object({
  ticket_id: id,
  agent_id: z.preprocess((v) => (v === '' || v === undefined ? null : v), z.string().max(100).nullable()),
});
export const DeleteInput = z.object({ ticket_id: id });
export const CloseRequestInput = z.object({
  ticket_id: id,
  by: optional(z.enum(CLOSE_REQUESTERS)),
  email: ownerEmail,
});
export const CloseResolveInput = z.object({ ticket_id: id, accept: formBool });
export const RateInput = z.object({
  ticket_id: id,
  score: formInt.pipe(z.number().min(1, 'must be 1 to 5').max(5, 'must be 1 to 5')),
  comment: optional(z.string().max(2000, 'must be at most 2,000 characters')),
  email: ownerEmail,
});
