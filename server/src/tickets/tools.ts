import { auditEntry } from '../audit/audit.js';
import { checkAccess } from '../http/auth.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import {
  actorRef,
  BulkResultSchema,
  newId,
  TicketViewSchema,
  type Attachment,
  type Reply,
  type RequestActor,
  type TicketEventType,
} from '../model/index.js';
import type { FileBlob, StoredTicket } from '../store/ticket-store.js';
import type { TicketDeps } from './deps.js';
import { withActivity } from './activity.js';
import { change, emit } from './routes.js';
import { BulkInput, MergeInput, SpamInput, TagsInput } from './schema.js';
import { derive } from './sla.js';
import { firstClosedStatus, setStatus } from './statuses.js';
import { fullView, viewFor } from './views.js';

// The everyday tools of the console (issue 14): tags, changes to many tickets at once, merging, spam.

const route = routeFor<TicketDeps>();
const ENCODINGS = ['json', 'form', 'multipart'] as const;
const ticketAnswer = (description: string) => ({ description, schema: TicketViewSchema });
const MAX_TAGS = 50;

/** The tags after adding and removing (adding first; a tag in both lists ends up removed). */
function retag(tags: string[], add: string[] = [], remove: string[] = []): string[] {
  const next = [...tags];
  for (const t of add) if (!next.includes(t)) next.push(t);
  const out = next.filter((t) => !remove.includes(t));
  if (out.length > MAX_TAGS) throw validationError('add', `a ticket holds at most ${MAX_TAGS} tags`);
  return out;
}

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

const tags = route({
  method: 'post',
  path: '/tags',
  access: 'staff',
  summary: 'Add and remove tags of a ticket',
  description: '`add` and `remove`: arrays of tag names (a form: comma-separated). Event ticket.tags_changed.',
  body: { schema: TagsInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body: input }, deps) {
    const { previous, ticket } = await change(deps, actor, input.ticket_id, undefined, null, (t) => {
      const next = retag(t.tags, input.add, input.remove);
      return sameTags(next, t.tags) ? t : { ...t, tags: next, updated_at: deps.clock().toISOString() };
    });
    const final = sameTags(previous.tags, ticket.tags)
      ? ticket
      : await emit(deps, actor, 'ticket.tags_changed', ticket, { previous });
    return { body: viewFor(actor, final) };
  },
});

const bulk = route({
  method: 'post',
  path: '/bulk',
  access: 'staff',
  summary: 'Change several tickets at once',
  description:
    'JSON `{ ticket_ids: [..] (1-100), set: { status?, priority?, agent_id?, add_tags?, remove_tags? } }`. ' +
    '`set` is checked whole first (400); then each ticket is changed on its own, and the answer says for ' +
    'each whether it was (an unknown ticket does not stop the others).',
  body: { schema: BulkInput, encodings: ['json'] },
  responses: { 200: { description: 'One result per ticket, in the order named', schema: BulkResultSchema } },
  errors: { 400: ['unknown_agent'] },
  async handler({ actor, body: input }, deps) {
    const config = deps.configStore.get();
    const { set } = input;
    if (set.status !== undefined && !config.statuses.some((s) => s.id === set.status))
      throw validationError('set.status', 'is not a configured status');
    if (typeof set.agent_id === 'string' && !config.agents.some((a) => a.id === set.agent_id))
      throw new ApiError(400, 'unknown_agent', 'There is no agent with this id.', { param: 'set.agent_id' });
    if (Object.values(set).every((v) => v === undefined)) throw validationError('set', 'changes nothing');
    // Changed in the order of their ids, answered in the order named: two requests naming the same
    // tickets in other orders then lock their rows in one order (PostgreSQL) and wait for each other
    // instead of deadlocking (issue 32).
    const named = [...new Set(input.ticket_ids)];
    const results = [];
    for (const id of [...named].sort()) {
      try {
        const { previous, ticket } = await change(deps, actor, id, undefined, null, (t) => {
          const at = deps.clock().toISOString();
          let next: StoredTicket = t;
          if (set.status !== undefined && set.status !== t.status)
            next = setStatus(next, set.status, config.statuses, at);
          if (set.priority !== undefined && set.priority !== t.priority)
            next = { ...next, priority: set.priority, updated_at: at };
          if (set.agent_id !== undefined && set.agent_id !== t.agent_id)
            next = { ...next, agent_id: set.agent_id, updated_at: at };
          const retagged = retag(next.tags, set.add_tags, set.remove_tags);
          if (!sameTags(retagged, next.tags)) next = { ...next, tags: retagged, updated_at: at };
          return next;
        });
        // One event per kind of change, each seeing the ticket as the one before left it.
        let final = ticket;
        const events: [TicketEventType, boolean][] = [
          ['ticket.status_changed', previous.status !== ticket.status],
          ['ticket.priority_changed', previous.priority !== ticket.priority],
          ['ticket.assigned', previous.agent_id !== ticket.agent_id],
          ['ticket.tags_changed', !sameTags(previous.tags, ticket.tags)],
        ];
        for (const [type, happened] of events) if (happened) final = await emit(deps, actor, type, final, { previous });
        results.push({ id, ok: true, ticket: fullView(final) });
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        results.push({ id, ok: false, error: { code: err.code, message: err.message } });
      }
    }
    const place = new Map(named.map((id, i) => [id, i]));
    results.sort((x, y) => place.get(x.id)! - place.get(y.id)!);
    return { body: { results } };
  },
});

const merge = route({
  method: 'post',
  path: '/merge',
  access: 'staff',
  stores: 'files',
  summary: 'Merge a ticket into another of the same customer',
  description:
    'The message, replies, notes and files of `ticket_id` move to `into_id` (the message as a customer ' +
    'reply, everything in time order); `ticket_id` is closed with `merged_into`. Both must have the same email.',
  body: { schema: MergeInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket merged into (into_id)') },
  errors: { 404: ['ticket_not_found'], 413: ['ticket_quota_exceeded'] },
  async handler({ actor, body: input }, deps) {
    if (input.ticket_id === input.into_id) throw validationError('into_id', 'must be another ticket');
    const store = deps.tickets[actor.mode];
    const config = deps.configStore.get();
    let before: { source: StoredTicket; target: StoredTicket } | undefined;
    // Both tickets are locked and read as one, and checked under those locks: of two merges crossing
    // each other (A into B, B into A, on one instance or two) or chained (A into B, B into C), the later
    // sees what the earlier wrote and is refused, where checks made before the writes let both pass
    // and the moved messages ended on neither ticket (issue 32). The receiving ticket is written first,
    // with the moved bytes: on the JSON files a crash between the two writes leaves a copy, never a loss.
    const [into, merged] = await store.updateMany([input.into_id, input.ticket_id], async ([target, source]) => {
      if (!source || !target) throw notFound('ticket');
      if (source.email.trim().toLowerCase() !== target.email.trim().toLowerCase())
        throw validationError('into_id', 'belongs to another customer (tickets merge only with the same email)');
      if (target.merged_into) throw validationError('into_id', 'was itself merged into another ticket');
      if (source.merged_into) throw validationError('ticket_id', 'was merged already');
      // The source's own message becomes a customer reply, carrying the source's own files.
      const opening: Reply = {
        id: newId('rpl'),
        message: source.message,
        ...(source.quoted === undefined ? {} : { quoted: source.quoted }),
        from_customer: true,
        author: source.name,
        created_at: source.created_at,
        attachments: [],
      };
      const moved = [opening, ...source.replies].map((r) => ({ ...r, attachments: [...r.attachments] }));
      const files: FileBlob[] = [];
      const movedFiles: Attachment[] = [];
      const fileOf = async (a: Attachment, replyId: string): Promise<Attachment> => {
        const data = await deps.files[actor.mode].read(source.id, a.id);
        if (data) files.push({ id: a.id, data });
        const next = { ...a, ticket_id: target.id, reply_id: replyId };
        movedFiles.push(next);
        return next;
      };
      for (const a of source.attachments) moved[0]!.attachments.push(await fileOf(a, opening.id));
      for (const r of moved.slice(1)) r.attachments = await Promise.all(r.attachments.map((a) => fileOf(a, r.id)));
      deps.quotas.checkTicket(
        target,
        movedFiles.map((f) => f.size),
        'ticket_id',
      );
      before = { source, target };
      const at = deps.clock().toISOString();
      const replies = [...target.replies, ...moved].sort((a, b) =>
        a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
      );
      // The receiving thread says where the moved messages came from (the merged one says where they went).
      const activity = [
        ...(target.activity ?? []),
        { id: newId('act'), type: 'merged_from' as const, at, actor: actorRef(actor), from: source.id },
      ];
      const closed = {
        ...setStatus(structuredClone(source), firstClosedStatus(config.statuses), config.statuses, at),
        replies: [],
        attachments: [],
        merged_into: target.id,
      };
      return [
        { ticket: derive({ ...target, replies, activity, updated_at: at }, config), files },
        { ticket: derive(withActivity(source, closed, actor, at), config) },
      ];
    });
    await emit(deps, actor, 'ticket.status_changed', merged!, { previous: before!.source });
    const final = await emit(deps, actor, 'ticket.merged', into!, { previous: before!.target });
    return { body: viewFor(actor, final) };
  },
});

const spam = route({
  method: 'post',
  path: '/spam',
  access: 'staff',
  summary: 'Mark a ticket as spam',
  description:
    'Closes it (the first closed status) and tags it `spam`; `block: "email"` or `"domain"` adds the ' +
    'sender to the blocklists, so that address (or domain) cannot file tickets with a public key again. ' +
    'Blocking a domain is for admins (a live secret key or an admin agent).',
  body: { schema: SpamInput, encodings: ENCODINGS },
  responses: { 200: ticketAnswer('The ticket') },
  errors: { 403: ['admin_required', 'live_secret_key_required'], 404: ['ticket_not_found'] },
  async handler({ actor, body: input, ctx }, deps) {
    // The domain blocklist is an admin setting (it turns away everyone at that domain): admins only,
    // checked before anything changes. Any staff may block the one address.
    if (input.block === 'domain') checkAccess(ctx, actor, 'admin');
    const { statuses } = deps.configStore.get();
    const { previous, ticket } = await change(deps, actor, input.ticket_id, undefined, null, (t) => {
      const at = deps.clock().toISOString();
      const closed = setStatus(t, firstClosedStatus(statuses), statuses, at);
      return { ...closed, tags: retag(closed.tags, ['spam']), updated_at: at };
    });
    let final = ticket;
    if (previous.status !== ticket.status)
      final = await emit(deps, actor, 'ticket.status_changed', final, { previous });
    if (!sameTags(previous.tags, ticket.tags))
      final = await emit(deps, actor, 'ticket.tags_changed', final, { previous });
    if (input.block) await block(deps, actor, ticket.email, input.block);
    return { body: viewFor(actor, final) };
  },
});

/** Adds the sender's address or domain to the blocklists (once). */
async function block(deps: TicketDeps, actor: RequestActor, email: string, what: 'email' | 'domain') {
  const address = email.trim().toLowerCase();
  const value = what === 'email' ? address : address.slice(address.lastIndexOf('@') + 1);
  let added = false;
  await deps.configStore.update((d) => {
    const list = what === 'email' ? d.blocklists.emails : d.blocklists.domains;
    added = !list.includes(value);
    if (added) list.push(value);
  });
  // As /admin records a configuration write (the value is an address: named by kind only).
  if (added) await deps.audit.append(auditEntry(deps.clock(), actor, 'config.update', 'blocklists', { added: what }));
}

export const toolRoutes = [tags, bulk, merge, spam];
