import { createHash } from 'node:crypto';
import { checkBlocklists } from '../abuse/blocklist.js';
import type { TicketEventType } from '../events/events.js';
import { checkFile, type CheckedFile } from '../files/check-file.js';
import { negotiate } from '../i18n/locales.js';
import { ApiError, moduleDisabled, notFound, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { fillPlaceholders } from '../mail/templates.js';
import { findMentions } from '../mentions/find-mentions.js';
import {
  CountsSchema,
  DeletedSchema,
  moduleEnabled,
  TicketListSchema,
  TicketViewSchema,
  type Attachment,
  type ListSort,
  type Reply,
  type RequestActor,
  type Ticket,
} from '../model/index.js';
import { newId } from '../model/index.js';
import type { IdempotencyRecord, ListContext, StoredTicket } from '../store/ticket-store.js';
import { withActivity } from './activity.js';
import type { TicketDeps } from './deps.js';
import { checkFields } from './fields.js';
import { checkCreator, ownerCheck, findTicket, secretKeyRequired } from './lookup.js';
import {
  AssignInput,
  CloseRequestInput,
  CloseResolveInput,
  CreateInput,
  DeleteInput,
  ListQuery,
  PriorityInput,
  RateInput,
  ReplyInput,
  SnoozeInput,
  StatusInput,
  TicketQuery,
} from './schema.js';
import { derive } from './sla.js';
import { markSeen } from './seen.js';
import {
  afterCustomerMessage,
  firstClosedStatus,
  firstOpenStatus,
  isClosedStatus,
  replyStatus,
  setStatus,
  withoutSnooze,
} from './statuses.js';
import { fullView, publicView, viewFor, viewOf, type View } from './views.js';
import { signedMessage } from './signature.js';
import { nextAssignee } from './assignment.js';

const route = routeFor<TicketDeps>();
const ENCODINGS = ['json', 'form', 'multipart'] as const;
const ticketAnswer = (description: string) => ({ description, schema: TicketViewSchema });

export function emit(
  deps: TicketDeps,
  actor: RequestActor,
  type: TicketEventType,
  ticket: Ticket,
  extra: { previous?: Ticket | undefined; reply?: Reply | undefined } = {},
) {
  return deps.events.emit({ type, mode: actor.mode, actor, ticket, ...extra });
}

/**
 * Changes one ticket under its lock (with due_at recomputed) and emits the event; returns the ticket
 * as the listeners (rules) left it, and the one before.
 */
export async function change(
  deps: TicketDeps,
  actor: RequestActor,
  ticketId: string,
  email: string | undefined,
  type: TicketEventType | null,
  apply: (t: StoredTicket) => StoredTicket,
) {
  const owns = ownerCheck(actor, email);
  let previous: StoredTicket | undefined;
  const updated = await deps.tickets[actor.mode].update(ticketId, (current) => {
    previous = owns(current);
    const next = withActivity(current, apply(structuredClone(current)), actor, deps.clock().toISOString());
    return { ticket: derive(next, deps.configStore.get()) };
  });
  if (!updated || !previous) throw notFound('ticket');
  const ticket = type ? await emit(deps, actor, type, updated, { previous }) : updated;
  return { previous, ticket };
}

/**
 * Runs `work` through the idempotency cache when the request carries an Idempotency-Key. After a
 * restart the key is found with the ticket it made, and a retry gets that ticket as it now stands.
 */
function idempotent(
  deps: TicketDeps,
  actor: RequestActor,
  endpoint: string,
  key: string | undefined,
  fingerprint: unknown,
  work: (record?: IdempotencyRecord) => Promise<Ticket>,
) {
  const scope = `${actor.kind === 'agent' ? `agent:${actor.agent.id}` : actor.key.id}|${actor.mode}|${endpoint}`;
  const store = deps.tickets[actor.mode];
  const recall = async (id: string) => {
    const found = await store.recallIdempotency(id);
    return found && { ...found, answer: () => store.get(found.ticketId) };
  };
  return deps.idempotency.run(scope, key, fingerprint, work, recall);
}

const create = route({
  method: 'post',
  path: '/create',
  access: 'customer',
  rateLimit: 'create',
  stores: 'files',
  summary: 'Create a ticket',
  description:
    'JSON, a form, or multipart with up to 10 files in attachments[] (each checked as /upload checks a file). ' +
    'With a public key and Turnstile on, cf-turnstile-response is verified.',
  body: { schema: CreateInput, encodings: ENCODINGS, files: { fields: ['attachments[]', 'attachments'], max: 10 } },
  requestHeaders: ['Idempotency-Key', 'X-Ticketing-Identity', 'Accept-Language'],
  responses: { 201: ticketAnswer('The new ticket, in the caller’s view') },
  errors: {
    403: ['blocked', 'module_disabled', 'captcha_failed'],
    409: ['idempotency_key_reused'],
    413: ['file_too_large', 'ticket_quota_exceeded'],
    415: ['unsupported_file_type'],
    429: ['upload_quota_exceeded'],
  },
  async handler({ actor, body: input, fields, files: uploads, ip, header }, deps) {
    checkCreator(actor, input.email);
    const config = deps.configStore.get();
    const customer = actor.kind === 'customer';
    const category = input.category === undefined ? undefined : config.categories.find((c) => c.id === input.category);
    if (input.category !== undefined && !category) throw validationError('category', 'is not a configured category');
    if (customer && config.form.require_category && !category) throw validationError('category', 'is required');
    const values = checkFields(category, input.fields);
    if (uploads.length && customer) {
      if (!moduleEnabled(config.modules, 'uploads')) throw moduleDisabled('uploads', 'attachments[]');
      if (!config.form.allow_attachments) {
        throw new ApiError(403, 'module_disabled', 'Attachments are switched off.', { param: 'attachments[]' });
      }
    }
    const files: CheckedFile[] = [];
    for (const [i, f] of uploads.entries()) files.push(await checkFile(f, `attachments[${i}]`));
    const sizes = files.map((f) => f.data.length);
    deps.quotas.checkTicket(undefined, sizes, 'attachments[]');
    if (customer) {
      checkBlocklists(config.blocklists, { ip, email: input.email, texts: [input.name, input.subject, input.message] });
    }

    const fingerprint = { ...fields, files: uploads.map((f) => [f.filename, f.data]) };
    const ticket = await idempotent(deps, actor, 'create', header('Idempotency-Key'), fingerprint, async (record) => {
      // Inside the idempotent block: a retry gets the first answer without being charged for its files
      // again or spending a second token.
      await deps.quotas.charge(actor, ip, sizes);
      if (customer && config.turnstile.enabled) {
        await deps.turnstile(config.turnstile.secret, input['cf-turnstile-response'], ip);
      }
      const at = deps.clock().toISOString();
      const id = newId('tkt');
      const attachments: Attachment[] = files.map((f) => ({
        id: newId('fil'),
        ticket_id: id,
        reply_id: null,
        name: f.name,
        size: f.data.length,
        type: f.type,
        created_at: at,
      }));
      // The customer's language, for the mails they get about this ticket.
      const locale = customer ? negotiate(header('Accept-Language')) : undefined;
      const stored = await deps.tickets[actor.mode].create({
        ticket: derive(
          {
            ...(locale ? { locale } : {}),
            id,
            subject: input.subject,
            message: input.message,
            name: input.name,
            email: input.email,
            status: firstOpenStatus(config.statuses),
            priority: 'normal',
            category: category?.id ?? null,
            fields: values,
            page_url: input.page_url ?? null,
            agent_id: await nextAssignee(config, deps.tickets[actor.mode]),
            tags: [],
            close_request: null,
            rating: null,
            replies: [],
            attachments,
            due_at: null,
            closed_at: null,
            created_at: at,
            updated_at: at,
          },
          config,
        ),
        files: attachments.map((a, i) => ({ id: a.id, data: files[i]!.data })),
        idempotency: record,
      });
      return emit(deps, actor, 'ticket.created', stored);
    });
    return { status: 201, body: viewFor(actor, ticket) };
  },
});

/** How far ahead "due soon" looks. */
const DUE_SOON_MS = 4 * 60 * 60 * 1000;

/** What the views and sorts are measured against for this request (store/ticket-store.ts, ListContext). */
function listContext(deps: TicketDeps, actor: RequestActor, sort: ListSort): ListContext {
  const now = deps.clock();
  return {
    sort,
    closed: deps.configStore
      .get()
      .statuses.filter((st) => st.closed)
      .map((st) => st.id),
    me: actor.kind === 'agent' ? actor.agent.id : undefined,
    now: now.toISOString(),
    soon: new Date(now.getTime() + DUE_SOON_MS).toISOString(),
  };
}

const list = route({
  method: 'get',
  path: '/list',
  access: 'staff',
  summary: 'List tickets: a view, filters, search and an order',
  description:
    'Views: needs_reply (open, the customer spoke last or nobody answered), mine (open, assigned to the ' +
    'signed-in agent; a secret key gets 400), mentions (open, a note names the signed-in agent; a secret key ' +
    'gets 400), unassigned, due_soon (open, due within 4 hours), overdue, ' +
    'open, closed, all. Sorts: created (newest first, the default), activity, due, priority.',
  query: ListQuery,
  responses: { 200: { description: 'A page of tickets', schema: TicketListSchema } },
  async handler({ actor, query }, deps) {
    const { limit, offset, sort, ...filter } = query;
    if ((filter.view === 'mine' || filter.view === 'mentions') && actor.kind !== 'agent') {
      throw validationError('view', `${filter.view} needs a signed-in agent (a secret key is nobody)`);
    }
    const context = listContext(deps, actor, sort);
    const page = await deps.tickets[actor.mode].list(filter, limit, offset, context);
    if (page.json !== undefined) {
      // PostgreSQL's page as the database wrote it: the same list views, spaced as PostgreSQL spaces JSON.
      const data = `{"data":${page.json},"total":${page.total},"limit":${limit},"offset":${offset}}`;
      return { raw: { data, type: 'application/json; charset=utf-8' } };
    }
    return { body: { data: page.items, total: page.total, limit, offset } };
  },
});

const counts = route({
  method: 'get',
  path: '/counts',
  access: 'staff',
  summary: 'How many tickets each inbox view and each status holds',
  description:
    'Each number is the `total` that /list answers for that view (or status) without other filters. ' +
    '`mine` and `mentions` are 0 with a secret key. Every configured status is listed, with 0 when no ticket has it.',
  responses: { 200: { description: 'Counts per view and per status', schema: CountsSchema } },
  async handler({ actor }, deps) {
    const found = await deps.tickets[actor.mode].counts(listContext(deps, actor, 'created'));
    const statuses: Record<string, number> = {};
    for (const st of deps.configStore.get().statuses) statuses[st.id] = 0;
    return { body: { views: found.views, statuses: { ...statuses, ...found.statuses } } };
  },
});

// Tickets from the store are immutable (a write makes a new object), so a view's answer (its JSON and
// ETag) can be kept per ticket object and per view: a poll of an unchanged ticket serialises and hashes
// nothing, and allocates no answer. Frozen: every request for the ticket gets the same one.
const serialized = new WeakMap<StoredTicket, Partial<Record<View, ReadReply>>>();
const READ_HEADERS = Object.freeze({ 'Cache-Control': 'private, no-cache' });
interface ReadReply {
  raw: { data: string; type: string };
  etag: string;
  headers: Record<string, string>;
}

function serializedView(view: View, ticket: StoredTicket): ReadReply {
  let forTicket = serialized.get(ticket);
  if (!forTicket) serialized.set(ticket, (forTicket = {}));
  return (forTicket[view] ??= (() => {
    const body = JSON.stringify(view === 'full' ? fullView(ticket) : publicView(ticket));
    return Object.freeze({
      raw: Object.freeze({ data: body, type: 'application/json; charset=utf-8' }),
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      headers: READ_HEADERS,
    });
  })());
}

/**
 * A page of a ticket's thread, newest last as always: a ticket can hold hundreds of replies (issue 33),
 * and the console reads the newest first, then older ones on request. Counted in the caller's view, so
 * a customer's cursor never counts or names an internal note.
 */
function threadPage<T extends { replies: { id: string }[] }>(view: T, limit: number, before: string | undefined) {
  let end = view.replies.length;
  if (before !== undefined) {
    end = view.replies.findIndex((r) => r.id === before);
    if (end < 0) throw validationError('messages_before', 'is not a reply of this ticket');
  }
  const start = Math.max(0, end - limit);
  return {
    ...view,
    replies: view.replies.slice(start, end),
    older_replies: start > 0 ? { count: start, cursor: view.replies[start]!.id } : null,
  };
}

const read = route({
  method: 'get',
  path: '/ticket',
  access: 'customer',
  summary: 'Read one ticket',
  description:
    'By `id` or by `number` (one of the two). Answers an ETag; a request with If-None-Match naming it gets ' +
    '304 without a body.',
  query: TicketQuery,
  requestHeaders: ['If-None-Match', 'X-Ticketing-Identity'],
  responses: {
    200: { ...ticketAnswer('The ticket, in the caller’s view'), headers: ['ETag', 'Cache-Control'] },
    304: { description: 'Not changed since the ETag in If-None-Match', headers: ['ETag', 'Cache-Control'] },
  },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, query }, deps) {
    if (query.id !== undefined && query.number !== undefined) throw validationError('number', 'cannot go with id');
    if (query.id === undefined && query.number === undefined) throw validationError('id', 'is required (or number)');
    const store = deps.tickets[actor.mode];
    let ticket: StoredTicket;
    if (query.id !== undefined) ticket = await findTicket(store, actor, query.id, query.email);
    else {
      const owns = ownerCheck(actor, query.email); // the proof is checked before the lookup, as for an id
      ticket = owns(await store.getByNumber(query.number!));
    }
    await markSeen(store, actor, ticket);
    if (query.messages_limit === undefined && query.messages_before === undefined)
      return serializedView(viewOf(actor), ticket);
    return { body: threadPage(viewFor(actor, ticket), query.messages_limit ?? 50, query.messages_before) };
  },
});

/**
 * The collision guard (issue 30): 409 ticket_changed with every reply and note newer than the message
 * the writer last saw (`seen`: a reply's id, or the ticket's own id for its first message).
 */
function refuseIfChanged(ticket: StoredTicket, seen: string) {
  const at = seen === ticket.id ? -1 : ticket.replies.findIndex((r) => r.id === seen);
  if (at === -1 && seen !== ticket.id) throw validationError('seen_message_id', 'is not a message of this ticket');
  const newer = fullView(ticket).replies.slice(at + 1);
  if (!newer.length) return;
  throw new ApiError(
    409,
    'ticket_changed',
    newer.length === 1
      ? 'A new message came in while you wrote: read it, then send again (or send with force).'
      : `${newer.length} new messages came in while you wrote: read them, then send again (or send with force).`,
    { messages: newer },
  );
}

const reply = route({
  method: 'post',
  path: '/reply',
  access: 'customer',
  stores: 'text',
  summary: 'Reply to a ticket',
  description:
    'With a public key the reply is the customer’s; with a secret key it is support’s (from_customer ' +
    'false by default), and `macro` fills in a macro’s text, status and priority. `internal: true` (staff) ' +
    'adds an internal note: never shown to a public key, never mailed to the customer, event ticket.note_added; ' +
    'an `@Name` of an active agent in it is kept as their id in the note’s `mentions` (event ticket.mentioned). ' +
    'A support reply sets `status`, else its macro’s, else /admin r=workflow reply_status (pending by default); a ' +
    'customer’s message moves a pending (or closed) ticket back to the first open status and ends a snooze. ' +
    'With `seen_message_id` (staff), a reply or note newer than that message makes it 409 ticket_changed with ' +
    'the newer ones in `error.messages`, and nothing is stored; `force: true` sends anyway.',
  body: { schema: ReplyInput, encodings: ENCODINGS },
  requestHeaders: ['Idempotency-Key', 'X-Ticketing-Identity'],
  responses: { 201: ticketAnswer('The ticket with the reply, in the caller’s view') },
  errors: {
    403: ['secret_key_required', 'blocked'],
    404: ['ticket_not_found'],
    409: ['idempotency_key_reused', 'ticket_changed'],
    413: ['ticket_quota_exceeded'],
  },
  async handler({ actor, body: input, fields, ip, header }, deps) {
    const customer = actor.kind === 'customer';
    if (customer && input.from_customer === false) throw secretKeyRequired('Replying as support');
    if (customer && input.macro !== undefined) throw secretKeyRequired('Using a macro');
    if (customer && input.internal) throw secretKeyRequired('An internal note');
    const note = input.internal === true;
    if (note && input.from_customer === true) throw validationError('from_customer', 'cannot be true on a note');
    const macro =
      input.macro === undefined ? undefined : deps.configStore.get().macros.find((m) => m.id === input.macro);
    if (input.macro !== undefined && !macro) throw validationError('macro', 'is not a configured macro');
    if (input.message === undefined && !macro) throw validationError('message', 'is required');
    if (customer && input.status !== undefined) throw secretKeyRequired('Setting the status');
    if (input.status !== undefined && !deps.configStore.get().statuses.some((st) => st.id === input.status))
      throw validationError('status', 'is not a configured status');
    const fromCustomer = customer ? true : note ? false : (input.from_customer ?? false);
    const owns = ownerCheck(actor, input.email);

    const ticket = await idempotent(deps, actor, 'reply', header('Idempotency-Key'), fields, async (record) => {
      const config = deps.configStore.get();
      const { statuses } = config;
      let added: Reply | undefined;
      let previous: StoredTicket | undefined;
      const updated = await deps.tickets[actor.mode].update(input.ticket_id, (current) => {
        previous = owns(current);
        // Checked under the ticket's lock: nothing can land between this look and the write.
        if (!customer && input.seen_message_id !== undefined && !input.force)
          refuseIfChanged(current, input.seen_message_id);
        // A macro's message is used when the reply brings none, with its placeholders filled in.
        const message = signedMessage(
          input.message ?? fillPlaceholders(macro!.message, current),
          actor,
          config,
          !fromCustomer && !note,
        );
        if (customer) checkBlocklists(config.blocklists, { ip, email: current.email, texts: [message] });
        deps.quotas.checkThread(current, message, actor);
        const at = deps.clock().toISOString();
        const mentions = note
          ? findMentions(
              message,
              config.agents.filter((a) => a.active),
            )
          : [];
        added = {
          id: newId('rpl'),
          message,
          from_customer: fromCustomer,
          // An agent's reply carries their name (never their email), whatever `author` says.
          author:
            fromCustomer && customer
              ? current.name
              : !fromCustomer && actor.kind === 'agent'
                ? actor.agent.name
                : (input.author ?? null),
          ...(!fromCustomer && actor.kind === 'agent' ? { agent_id: actor.agent.id } : {}),
          created_at: at,
          attachments: [],
          ...(note ? { internal: true as const } : {}),
          ...(mentions.length ? { mentions } : {}),
        };
        // A note leaves updated_at alone: the customer's view of the ticket stays byte for byte the same.
        let next: StoredTicket = {
          ...current,
          replies: [...current.replies, added],
          updated_at: note ? current.updated_at : at,
        };
        // A customer writing reopens a ticket that waits on them or is closed, and ends its snooze.
        if (fromCustomer) next = afterCustomerMessage(next, config, at);
        // A support reply: the status it names, its macro's, or the workflow's (waiting on the customer).
        const status = fromCustomer || note ? undefined : replyStatus(config, input.status, macro?.status);
        if (status !== undefined && status !== next.status) next = setStatus(next, status, statuses, at);
        if (macro?.priority) next = { ...next, priority: macro.priority };
        return { ticket: derive(withActivity(current, next, actor, at), config), idempotency: record };
      });
      if (!updated || !previous) throw notFound('ticket');
      let final = await emit(deps, actor, note ? 'ticket.note_added' : 'ticket.replied', updated, {
        previous,
        reply: added,
      });
      if (added?.mentions) final = await emit(deps, actor, 'ticket.mentioned', final, { previous, reply: added });
      if (!fromCustomer && !note && final.status !== previous.status)
        final = await emit(deps, actor, 'ticket.status_changed', final, { previous });
      if (macro?.priority && final.priority !== previous.priority)
        final = await emit(deps, actor, 'ticket.priority_changed', final, { previous });
      return final;
    });
    return { status: 201, body: viewFor(actor, ticket) };
  },
});

const status = route({
  method: 'post',
  path: '/status',
  access: 'staff',
  summary: 'Change the status',
  body: { schema: StatusInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body: input }, deps) {
    const { statuses } = deps.configStore.get();
    if (!statuses.some((s) => s.id === input.status)) throw validationError('status', 'is not a configured status');
    const { ticket } = await change(deps, actor, input.ticket_id, undefined, 'ticket.status_changed', (t) =>
      setStatus(t, input.status, statuses, deps.clock().toISOString()),
    );
    return { body: viewFor(actor, ticket) };
  },
});

const priority = route({
  method: 'post',
  path: '/priority',
  access: 'staff',
  summary: 'Set the priority',
  body: { schema: PriorityInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body: input }, deps) {
    const { ticket } = await change(deps, actor, input.ticket_id, undefined, 'ticket.priority_changed', (t) => ({
      ...t,
      priority: input.priority,
      updated_at: deps.clock().toISOString(),
    }));
    return { body: viewFor(actor, ticket) };
  },
});

const assign = route({
  method: 'post',
  path: '/assign',
  access: 'staff',
  summary: 'Assign to an agent ("" or null removes the assignment)',
  body: { schema: AssignInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 400: ['unknown_agent'], 404: ['ticket_not_found'] },
  async handler({ actor, body: input }, deps) {
    if (input.agent_id !== null && !deps.configStore.get().agents.some((a) => a.id === input.agent_id)) {
      throw new ApiError(400, 'unknown_agent', 'There is no agent with this id.', { param: 'agent_id' });
    }
    const { ticket } = await change(deps, actor, input.ticket_id, undefined, 'ticket.assigned', (t) => ({
      ...t,
      agent_id: input.agent_id,
      updated_at: deps.clock().toISOString(),
    }));
    return { body: viewFor(actor, ticket) };
  },
});

const remove = route({
  method: 'delete',
  path: '/delete',
  access: 'staff',
  summary: 'Delete a ticket and its files',
  description: '`ticket_id` in the query or in the body.',
  query: DeleteInput,
  body: { schema: DeleteInput, encodings: ENCODINGS, optional: true },
  responses: { 200: { description: 'Deleted', schema: DeletedSchema } },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, query, body }, deps) {
    const id = body.ticket_id ?? query.ticket_id;
    if (id === undefined) throw validationError('ticket_id', 'is required');
    const store = deps.tickets[actor.mode];
    const ticket = await store.get(id);
    if (!ticket || !(await store.remove(id))) throw notFound('ticket');
    await emit(deps, actor, 'ticket.deleted', ticket);
    return { body: { id, deleted: true as const } };
  },
});

const closeRequest = route({
  method: 'post',
  path: '/close-request',
  access: 'customer',
  module: 'close_request',
  summary: 'Ask for the ticket to be closed',
  description: 'A pending request is kept as it is. `by` is the customer with a public key, support with a secret key.',
  body: { schema: CloseRequestInput, encodings: ENCODINGS },
  requestHeaders: ['X-Ticketing-Identity'],
  responses: { 200: ticketAnswer('The ticket with its close request') },
  errors: { 403: ['secret_key_required'], 404: ['ticket_not_found'], 409: ['ticket_closed'] },
  async handler({ actor, body: input }, deps) {
    if (actor.kind === 'customer' && input.by === 'agent') throw secretKeyRequired('Requesting closing as an agent');
    const by = input.by ?? (actor.kind === 'customer' ? 'customer' : 'agent');
    const { statuses } = deps.configStore.get();
    const { previous, ticket } = await change(deps, actor, input.ticket_id, input.email, null, (t) => {
      if (isClosedStatus(statuses, t.status))
        throw new ApiError(409, 'ticket_closed', 'This ticket is already closed.');
      if (t.close_request) return t; // a pending request stays as it is
      const at = deps.clock().toISOString();
      return { ...t, close_request: { by, requested_at: at }, updated_at: at };
    });
    const final = previous.close_request
      ? ticket
      : await emit(deps, actor, 'ticket.close_requested', ticket, { previous });
    return { body: viewFor(actor, final) };
  },
});

const closeResolve = route({
  method: 'post',
  path: '/close-resolve',
  access: 'staff',
  summary: 'Accept or reject a close request',
  body: { schema: CloseResolveInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 404: ['ticket_not_found'], 409: ['no_close_request'] },
  async handler({ actor, body: input }, deps) {
    const { statuses } = deps.configStore.get();
    const { ticket } = await change(deps, actor, input.ticket_id, undefined, 'ticket.close_resolved', (t) => {
      if (!t.close_request) throw new ApiError(409, 'no_close_request', 'Nobody asked to close this ticket.');
      const at = deps.clock().toISOString();
      const next = input.accept ? setStatus(t, firstClosedStatus(statuses), statuses, at) : { ...t, updated_at: at };
      return { ...next, close_request: null };
    });
    return { body: viewFor(actor, ticket) };
  },
});

/** A snooze ends within a year: further off is a typo more often than a plan. */
const SNOOZE_MAX_MS = 366 * 24 * 60 * 60 * 1000;

const snooze = route({
  method: 'post',
  path: '/snooze',
  access: 'staff',
  summary: 'Snooze a ticket: out of needs_reply until a time or the customer’s next message',
  description:
    '`until`: an ISO 8601 time in the future (within a year); `null` ends the snooze. Meanwhile the ticket ' +
    'is in the view `snoozed`, not in needs_reply; it comes back by itself at `until`, or when the customer ' +
    'writes. Event ticket.snoozed. The customer sees nothing of it.',
  body: { schema: SnoozeInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket, with snoozed_until') },
  errors: { 404: ['ticket_not_found'], 409: ['ticket_closed'] },
  async handler({ actor, body: input }, deps) {
    const now = deps.clock().getTime();
    const until = input.until === null ? null : Date.parse(input.until);
    if (until !== null && until <= now) throw validationError('until', 'must be in the future');
    if (until !== null && until > now + SNOOZE_MAX_MS) throw validationError('until', 'must be within a year');
    const { statuses } = deps.configStore.get();
    const { previous, ticket } = await change(deps, actor, input.ticket_id, undefined, null, (t) => {
      if (until === null) return withoutSnooze(t);
      if (isClosedStatus(statuses, t.status)) throw new ApiError(409, 'ticket_closed', 'This ticket is closed.');
      return { ...t, snoozed_until: new Date(until).toISOString() };
    });
    const final =
      (previous.snoozed_until ?? null) === (ticket.snoozed_until ?? null)
        ? ticket
        : await emit(deps, actor, 'ticket.snoozed', ticket, { previous });
    return { body: viewFor(actor, final) };
  },
});

const rate = route({
  method: 'post',
  path: '/rate',
  access: 'customer',
  module: 'rating',
  summary: 'Rate a ticket 1-5 (again replaces the rating)',
  body: { schema: RateInput, encodings: ENCODINGS },
  requestHeaders: ['X-Ticketing-Identity'],
  responses: { 200: ticketAnswer('The rated ticket') },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body: input }, deps) {
    const { ticket } = await change(deps, actor, input.ticket_id, input.email, 'ticket.rated', (t) => {
      const at = deps.clock().toISOString();
      return { ...t, rating: { score: input.score, comment: input.comment ?? null, rated_at: at }, updated_at: at };
    });
    return { body: viewFor(actor, ticket) };
  },
});

export const ticketRoutes = [
  create,
  list,
  counts,
  read,
  reply,
  status,
  priority,
  assign,
  remove,
  closeRequest,
  closeResolve,
  rate,
  snooze,
];
