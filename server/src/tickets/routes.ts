import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Attachment, Reply, Status, Ticket } from '../api-types.js';
import type { Deps } from '../deps.js';
import type { TicketEventType } from '../events.js';
import { readBody } from '../http/body.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';
import { checkFile, type CheckedFile } from '../files/check-file.js';
import { newId } from '../store/ids.js';
import { checkFields } from './fields.js';
import { checkOwner, findTicket, requireEmailForPublic, secretKeyRequired, storeFor } from './lookup.js';
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
import { firstClosedStatus, firstOpenStatus, isClosedStatus } from './statuses.js';
import { viewFor } from './views.js';

export function ticketRoutes(route: Route, deps: Deps) {
  const now = () => deps.clock().toISOString();
  const actorOf = (ctx: Context) => ({ kind: ctx.state.auth.kind, prefix: ctx.state.auth.prefix });

  /** Changes one ticket under its lock, emits the event, and answers with the ticket in the caller's view. */
  async function change(
    ctx: Context,
    ticketId: string,
    email: string | undefined,
    type: TicketEventType | null,
    apply: (t: Ticket) => Ticket,
  ) {
    let previous: Ticket | undefined;
    const updated = await storeFor(ctx, deps).update(ticketId, (current) => {
      previous = checkOwner(ctx, current, email);
      return { ticket: apply(structuredClone(current)) };
    });
    if (!updated) throw notFound('ticket');
    if (type)
      await deps.events.emit({ type, mode: ctx.state.auth.mode, actor: actorOf(ctx), ticket: updated, previous });
    ctx.body = viewFor(ctx.state.auth, updated);
    return updated;
  }

  /** Answers through the idempotency cache when the request carries an Idempotency-Key. */
  async function idempotent(
    ctx: Context,
    endpoint: string,
    body: unknown,
    work: () => Promise<{ status: number; body: unknown }>,
  ) {
    const scope = `${ctx.state.auth.id}|${ctx.state.auth.mode}|${endpoint}`;
    const answer = await deps.idempotency.run(scope, ctx.get('Idempotency-Key') || undefined, body, work);
    ctx.status = answer.status;
    ctx.body = answer.body;
  }

  route('post', 'create', async (ctx) => {
    const body = await readBody(ctx, { files: { fields: ['attachments[]', 'attachments'], max: 10 } });
    const input = validate(CreateInput, body.fields);
    const config = deps.configStore.get();
    const category = input.category === undefined ? undefined : config.categories.find((c) => c.id === input.category);
    if (input.category !== undefined && !category) throw validationError('category', 'is not a configured category');
    const fields = checkFields(category, input.fields);
    const files: CheckedFile[] = [];
    for (const [i, f] of body.files.entries()) files.push(await checkFile(f, `attachments[${i}]`));

    const fingerprint = { ...body.fields, files: body.files.map((f) => [f.filename, f.data]) };
    await idempotent(ctx, 'create', fingerprint, async () => {
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
        ticket,
        files: attachments.map((a, i) => ({ id: a.id, data: files[i]!.data })),
      });
      await deps.events.emit({
        type: 'ticket.created',
        mode: ctx.state.auth.mode,
        actor: actorOf(ctx),
        ticket: stored,
      });
      return { status: 201, body: viewFor(ctx.state.auth, stored) };
    });
  });

  route('get', 'list', async (ctx) => {
    const { limit, offset, ...filter } = validate(ListQuery, ctx.query);
    const { items, total } = storeFor(ctx, deps).list(filter, limit, offset);
    ctx.body = { data: items, total, limit, offset };
  });

  route('get', 'ticket', async (ctx) => {
    const query = validate(TicketQuery, ctx.query);
    requireEmailForPublic(ctx, query.email);
    const ticket = await findTicket(ctx, deps, query.id, query.email);
    const body = JSON.stringify(viewFor(ctx.state.auth, ticket));
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
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
    if (input.message === undefined) throw validationError('message', 'is required');
    const message = input.message;
    const fromCustomer = auth.kind === 'public' ? true : (input.from_customer ?? false);

    await idempotent(ctx, 'reply', fields, async () => {
      const statuses = deps.configStore.get().statuses;
      let reply: Reply | undefined;
      let previous: Ticket | undefined;
      const updated = await storeFor(ctx, deps).update(input.ticket_id, (current) => {
        previous = checkOwner(ctx, current, input.email);
        const at = now();
        reply = {
          id: newId('rpl'),
          message,
          from_customer: fromCustomer,
          author: fromCustomer && auth.kind === 'public' ? current.name : (input.author ?? null),
          created_at: at,
          attachments: [],
        };
        const next: Ticket = { ...current, replies: [...current.replies, reply], updated_at: at };
        // A customer writing on a closed ticket reopens it.
        if (fromCustomer && isClosedStatus(statuses, current.status)) {
          next.status = firstOpenStatus(statuses);
          next.closed_at = null;
        }
        return { ticket: next };
      });
      if (!updated) throw notFound('ticket');
      await deps.events.emit({
        type: 'ticket.replied',
        mode: auth.mode,
        actor: actorOf(ctx),
        ticket: updated,
        previous,
        reply,
      });
      return { status: 201, body: viewFor(auth, updated) };
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
    await deps.events.emit({ type: 'ticket.deleted', mode: ctx.state.auth.mode, actor: actorOf(ctx), ticket });
    ctx.body = { id: input.ticket_id, deleted: true };
  });

  route('post', 'close-request', async (ctx) => {
    const input = validate(CloseRequestInput, (await readBody(ctx)).fields);
    const { auth } = ctx.state;
    if (auth.kind === 'public' && input.by === 'agent') throw secretKeyRequired('Requesting closing as an agent');
    const by = input.by ?? (auth.kind === 'public' ? 'customer' : 'agent');
    const statuses = deps.configStore.get().statuses;
    let raised = false;
    await change(ctx, input.ticket_id, input.email, null, (t) => {
      if (isClosedStatus(statuses, t.status))
        throw new ApiError(409, 'ticket_closed', 'This ticket is already closed.');
      if (t.close_request) return t; // a pending request stays as it is
      raised = true;
      const at = now();
      return { ...t, close_request: { by, requested_at: at }, updated_at: at };
    }).then(async (t) => {
      if (raised)
        await deps.events.emit({ type: 'ticket.close_requested', mode: auth.mode, actor: actorOf(ctx), ticket: t });
    });
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
    const input = validate(RateInput, (await readBody(ctx)).fields);
    await change(ctx, input.ticket_id, input.email, 'ticket.rated', (t) => {
      const at = now();
      return { ...t, rating: { score: input.score, comment: input.comment ?? null, rated_at: at }, updated_at: at };
    });
  });
}

/** Entering a closed status sets closed_at (and settles a pending close request); leaving one clears it. */
export function setStatus(t: Ticket, status: string, statuses: Status[], at: string): Ticket {
  const closing = isClosedStatus(statuses, status);
  const wasClosed = isClosedStatus(statuses, t.status);
  return {
    ...t,
    status,
    closed_at: closing ? (wasClosed && t.closed_at ? t.closed_at : at) : null,
    close_request: closing ? null : t.close_request,
    updated_at: at,
  };
}

/** RFC 9110 If-None-Match: a list of tags (weak or strong) or "*". */
function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
