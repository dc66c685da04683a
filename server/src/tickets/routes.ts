import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { checkBlocklists } from '../abuse/blocklist.js';
import { verifyTurnstile } from '../abuse/turnstile.js';
import type { Attachment, Reply, Ticket } from '../api-types.js';
import { derive } from '../automation/sla.js';
import type { Deps } from '../deps.js';
import type { TicketEventType } from '../events.js';
import { checkFile, type CheckedFile } from '../files/check-file.js';
import { readBody } from '../http/body.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import { chargeUpload, checkTicketQuota } from '../http/quota.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';
import { requireModule } from '../portal/modules.js';
import { fillPlaceholders } from '../mail/templates.js';
import { newId } from '../store/ids.js';
import { checkFields } from './fields.js';
import type { IdempotencyRecord } from './idempotency.js';
import { findTicket, ownerCheck, secretKeyRequired, storeFor } from './lookup.js';
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
  StatusInput,
  TicketQuery,
} from './schema.js';
import { firstClosedStatus, firstOpenStatus, isClosedStatus, setStatus } from './statuses.js';
import { fullView, publicView, viewFor } from './views.js';

export function ticketRoutes(route: Route, deps: Deps) {
  const now = () => deps.clock().toISOString();
  const actorOf = (ctx: Context) => ({ kind: ctx.state.auth.kind, prefix: ctx.state.auth.prefix });
  const emit = (
    ctx: Context,
    type: TicketEventType,
    ticket: Ticket,
    extra: { previous?: Ticket; reply?: Reply } = {},
  ) => deps.events.emit({ type, mode: ctx.state.auth.mode, actor: actorOf(ctx), ticket, ...extra });

  /**
   * Changes one ticket under its lock (with due_at recomputed), emits the event, and answers with the
   * ticket as the listeners (rules) left it, in the caller's view.
   */
  async function change(
    ctx: Context,
    ticketId: string,
    email: string | undefined,
    type: TicketEventType | null,
    apply: (t: Ticket) => Ticket,
  ) {
    const owns = ownerCheck(ctx, email);
    let previous: Ticket | undefined;
    const updated = await storeFor(ctx, deps).update(ticketId, (current) => {
      previous = owns(current);
      return { ticket: derive(apply(structuredClone(current)), deps.configStore.get()) };
    });
    if (!updated) throw notFound('ticket');
    const final = type ? await emit(ctx, type, updated, { previous }) : updated;
    ctx.body = viewFor(ctx.state.auth, final);
    return { previous: previous!, ticket: final };
  }

  /** Answers through the idempotency cache when the request carries an Idempotency-Key. */
  async function idempotent(
    ctx: Context,
    endpoint: string,
    body: unknown,
    work: (record?: IdempotencyRecord) => Promise<{ status: number; body: unknown }>,
  ) {
    const scope = `${ctx.state.auth.id}|${ctx.state.auth.mode}|${endpoint}`;
    const store = storeFor(ctx, deps);
    // After a restart the key is found with the ticket it made; the retry gets that ticket as it is now.
    const recall = async (key: string) => {
      const found = await store.recallIdempotency(key);
      return (
        found && {
          ...found,
          answer: async () => {
            const ticket = await store.get(found.ticketId);
            return ticket && { status: 201, body: viewFor(ctx.state.auth, ticket) };
          },
        }
      );
    };
    const answer = await deps.idempotency.run(scope, ctx.get('Idempotency-Key') || undefined, body, work, recall);
    ctx.status = answer.status;
    ctx.body = answer.body;
  }

  route('post', 'create', async (ctx) => {
    const body = await readBody(ctx, { files: { fields: ['attachments[]', 'attachments'], max: 10 } });
    const input = validate(CreateInput, body.fields);
    const config = deps.configStore.get();
    const isPublic = ctx.state.auth.kind === 'public';
    const category = input.category === undefined ? undefined : config.categories.find((c) => c.id === input.category);
    if (input.category !== undefined && !category) throw validationError('category', 'is not a configured category');
    if (isPublic && config.form.require_category && !category) throw validationError('category', 'is required');
    const fields = checkFields(category, input.fields);
    if (body.files.length) {
      requireModule(ctx, config, 'uploads', 'Attachments', 'attachments[]');
      if (isPublic && !config.form.allow_attachments) {
        throw new ApiError(403, 'module_disabled', 'Attachments are switched off.', { param: 'attachments[]' });
      }
    }
    const files: CheckedFile[] = [];
    for (const [i, f] of body.files.entries()) files.push(await checkFile(f, `attachments[${i}]`));
    const sizes = files.map((f) => f.data.length);
    checkTicketQuota(deps.config.quotas, undefined, sizes, 'attachments[]');
    if (isPublic) {
      checkBlocklists(config.blocklists, {
        ip: ctx.ip,
        email: input.email,
        texts: [input.name, input.subject, input.message],
      });
    }

    const fingerprint = { ...body.fields, files: body.files.map((f) => [f.filename, f.data]) };
    await idempotent(ctx, 'create', fingerprint, async (idempotency) => {
      // Inside the idempotent block: a retry gets the first answer without being charged for its files
      // again or spending a second token.
      chargeUpload(ctx, deps, sizes);
      if (isPublic && config.turnstile.enabled) {
        const token = body.fields['cf-turnstile-response'];
        await verifyTurnstile(deps.config.turnstileVerifyUrl, config.turnstile.secret, token, ctx.ip);
      }
      const at = now();
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
      const ticket: Ticket = {
        id,
        subject: input.subject,
        message: input.message,
        name: input.name,
        email: input.email,
        status: firstOpenStatus(config.statuses),
        priority: 'normal',
        category: category?.id ?? null,
        fields,
        page_url: input.page_url ?? null,
        agent_id: null,
        tags: [],
        close_request: null,
        rating: null,
        replies: [],
        attachments,
        due_at: null,
        closed_at: null,
        created_at: at,
        updated_at: at,
      };
      const stored = await storeFor(ctx, deps).create({
        ticket: derive(ticket, config),
        files: attachments.map((a, i) => ({ id: a.id, data: files[i]!.data })),
        idempotency,
      });
      const final = await emit(ctx, 'ticket.created', stored);
      return { status: 201, body: viewFor(ctx.state.auth, final) };
    });
  });

  route('get', 'list', async (ctx) => {
    const { limit, offset, ...filter } = validate(ListQuery, ctx.query);
    const { items, total } = storeFor(ctx, deps).list(filter, limit, offset);
    ctx.body = { data: items, total, limit, offset };
  });

  route('get', 'ticket', async (ctx) => {
    const query = validate(TicketQuery, ctx.query);
    const ticket = await findTicket(ctx, deps, query.id, query.email);
    const { body, etag } = serializedView(ctx.state.auth.kind, ticket);
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.set('ETag', etag);
    if (matchesEtag(ctx.get('If-None-Match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = body;
  });

  route('post', 'reply', async (ctx) => {
    const { fields } = await readBody(ctx);
    const input = validate(ReplyInput, fields);
    const { auth } = ctx.state;
    if (auth.kind === 'public' && input.from_customer === false) throw secretKeyRequired('Replying as support');
    if (auth.kind === 'public' && input.macro !== undefined) throw secretKeyRequired('Using a macro');
    const macro =
      input.macro === undefined ? undefined : deps.configStore.get().macros.find((m) => m.id === input.macro);
    if (input.macro !== undefined && !macro) throw validationError('macro', 'is not a configured macro');
    if (input.message === undefined && !macro) throw validationError('message', 'is required');
    const fromCustomer = auth.kind === 'public' ? true : (input.from_customer ?? false);
    const owns = ownerCheck(ctx, input.email);

    await idempotent(ctx, 'reply', fields, async (idempotency) => {
      const config = deps.configStore.get();
      const { statuses } = config;
      let reply: Reply | undefined;
      let previous: Ticket | undefined;
      const updated = await storeFor(ctx, deps).update(input.ticket_id, (current) => {
        previous = owns(current);
        // A macro's message is used when the reply brings none, with its placeholders filled in.
        const message = input.message ?? fillPlaceholders(macro!.message, current);
        if (auth.kind === 'public')
          checkBlocklists(config.blocklists, { ip: ctx.ip, email: current.email, texts: [message] });
        const at = now();
        reply = {
          id: newId('rpl'),
          message,
          from_customer: fromCustomer,
          author: fromCustomer && auth.kind === 'public' ? current.name : (input.author ?? null),
          created_at: at,
          attachments: [],
        };
        let next: Ticket = { ...current, replies: [...current.replies, reply], updated_at: at };
        // A customer writing on a closed ticket reopens it.
        if (fromCustomer && isClosedStatus(statuses, current.status)) {
          next = setStatus(next, firstOpenStatus(statuses), statuses, at);
        }
        if (macro?.status && statuses.some((s) => s.id === macro.status))
          next = setStatus(next, macro.status, statuses, at);
        if (macro?.priority) next = { ...next, priority: macro.priority };
        return { ticket: derive(next, config), idempotency };
      });
      if (!updated) throw notFound('ticket');
      let final = await emit(ctx, 'ticket.replied', updated, { previous, reply });
      if (macro?.status && final.status !== previous!.status)
        final = await emit(ctx, 'ticket.status_changed', final, { previous });
      if (macro?.priority && final.priority !== previous!.priority) {
        final = await emit(ctx, 'ticket.priority_changed', final, { previous });
      }
      return { status: 201, body: viewFor(auth, final) };
    });
  });

  route('post', 'status', async (ctx) => {
    const input = validate(StatusInput, (await readBody(ctx)).fields);
    const statuses = deps.configStore.get().statuses;
    if (!statuses.some((s) => s.id === input.status)) throw validationError('status', 'is not a configured status');
    await change(ctx, input.ticket_id, undefined, 'ticket.status_changed', (t) =>
      setStatus(t, input.status, statuses, now()),
    );
  });

  route('post', 'priority', async (ctx) => {
    const input = validate(PriorityInput, (await readBody(ctx)).fields);
    await change(ctx, input.ticket_id, undefined, 'ticket.priority_changed', (t) => ({
      ...t,
      priority: input.priority,
      updated_at: now(),
    }));
  });

  route('post', 'assign', async (ctx) => {
    const input = validate(AssignInput, (await readBody(ctx)).fields);
    if (input.agent_id !== null && !deps.configStore.get().agents.some((a) => a.id === input.agent_id)) {
      throw new ApiError(400, 'unknown_agent', 'There is no agent with this id.', { param: 'agent_id' });
    }
    await change(ctx, input.ticket_id, undefined, 'ticket.assigned', (t) => ({
      ...t,
      agent_id: input.agent_id,
      updated_at: now(),
    }));
  });

  route('delete', 'delete', async (ctx) => {
    const { fields } = await readBody(ctx);
    const input = validate(DeleteInput, { ticket_id: ctx.query.ticket_id, ...fields });
    const store = storeFor(ctx, deps);
    const ticket = await store.get(input.ticket_id);
    if (!ticket || !(await store.remove(input.ticket_id))) throw notFound('ticket');
    await emit(ctx, 'ticket.deleted', ticket);
    ctx.body = { id: input.ticket_id, deleted: true };
  });

  route('post', 'close-request', async (ctx) => {
    requireModule(ctx, deps.configStore.get(), 'close_request', 'Asking to close a ticket');
    const input = validate(CloseRequestInput, (await readBody(ctx)).fields);
    const { auth } = ctx.state;
    if (auth.kind === 'public' && input.by === 'agent') throw secretKeyRequired('Requesting closing as an agent');
    const by = input.by ?? (auth.kind === 'public' ? 'customer' : 'agent');
    const statuses = deps.configStore.get().statuses;
    const { previous, ticket } = await change(ctx, input.ticket_id, input.email, null, (t) => {
      if (isClosedStatus(statuses, t.status))
        throw new ApiError(409, 'ticket_closed', 'This ticket is already closed.');
      if (t.close_request) return t; // a pending request stays as it is
      const at = now();
      return { ...t, close_request: { by, requested_at: at }, updated_at: at };
    });
    if (!previous.close_request)
      ctx.body = viewFor(auth, await emit(ctx, 'ticket.close_requested', ticket, { previous }));
  });

  route('post', 'close-resolve', async (ctx) => {
    const input = validate(CloseResolveInput, (await readBody(ctx)).fields);
    const statuses = deps.configStore.get().statuses;
    await change(ctx, input.ticket_id, undefined, 'ticket.close_resolved', (t) => {
      if (!t.close_request) throw new ApiError(409, 'no_close_request', 'Nobody asked to close this ticket.');
      const at = now();
      const next = input.accept ? setStatus(t, firstClosedStatus(statuses), statuses, at) : { ...t, updated_at: at };
      return { ...next, close_request: null };
    });
  });

  route('post', 'rate', async (ctx) => {
    requireModule(ctx, deps.configStore.get(), 'rating', 'Rating');
    const input = validate(RateInput, (await readBody(ctx)).fields);
    await change(ctx, input.ticket_id, input.email, 'ticket.rated', (t) => {
      const at = now();
      return { ...t, rating: { score: input.score, comment: input.comment ?? null, rated_at: at }, updated_at: at };
    });
  });
}

// Tickets from the store are immutable (a write makes a new object), so a view's JSON and ETag can be
// kept per ticket object and per key kind: a poll of an unchanged ticket serialises and hashes nothing.
const views = new WeakMap<Ticket, Partial<Record<'public' | 'secret', { body: string; etag: string }>>>();

function serializedView(kind: 'public' | 'secret', ticket: Ticket) {
  let forTicket = views.get(ticket);
  if (!forTicket) views.set(ticket, (forTicket = {}));
  return (forTicket[kind] ??= (() => {
    const body = JSON.stringify(kind === 'secret' ? fullView(ticket) : publicView(ticket));
    return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
  })());
}

/** RFC 9110 If-None-Match: a list of tags (weak or strong) or "*". */
function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
