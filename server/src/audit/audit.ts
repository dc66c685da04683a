import type { TicketEvent } from '../events/events.js';
import type { Actor, AuditActor, AuditEntry } from '../model/index.js';
import { newId } from '../model/index.js';
import type { LogStore } from '../store/log-store.js';

export type { AuditEntry };
export type AuditLog = LogStore<AuditEntry>;

/**
 * How the audit log names an actor (docs/api.md, r=audit): a key by its kind and display prefix, an
 * agent by id and name, the system as itself. Never the key.
 */
function auditActor(actor: Actor): AuditActor {
  switch (actor.kind) {
    case 'customer':
      return { kind: 'public', prefix: actor.key.prefix };
    case 'key':
      return { kind: 'secret', prefix: actor.key.prefix };
    case 'agent':
      return { kind: 'agent', id: actor.agent.id, name: actor.agent.name };
    case 'system':
      return { kind: 'system', prefix: null };
  }
}

export function auditEntry(
  at: Date,
  actor: Actor,
  action: string,
  target: string | null,
  details: Record<string, unknown> = {},
): AuditEntry {
  return { id: newId('aud'), at: at.toISOString(), actor: auditActor(actor), action, target, details };
}

/** What an audit entry says about a ticket event: what changed, by id, never the texts. */
function ticketEventDetails(e: TicketEvent): Record<string, unknown> {
  const p = e.previous;
  switch (e.type) {
    case 'ticket.status_changed':
      return { from: p?.status ?? null, to: e.ticket.status };
    case 'ticket.priority_changed':
      return { from: p?.priority ?? null, to: e.ticket.priority };
    case 'ticket.assigned':
      return { from: p?.agent_id ?? null, to: e.ticket.agent_id };
    case 'ticket.replied':
      return { reply_id: e.reply?.id ?? null, from_customer: e.reply?.from_customer ?? null };
    case 'ticket.note_added':
      return { reply_id: e.reply?.id ?? null };
    case 'ticket.mentioned':
      return { reply_id: e.reply?.id ?? null, agents: e.reply?.mentions ?? [] };
    case 'ticket.rated':
      return { score: e.ticket.rating?.score ?? null };
    case 'ticket.snoozed':
      return { until: e.ticket.snoozed_until ?? null };
    case 'ticket.close_resolved':
      return { status: e.ticket.status };
    case 'file.uploaded':
      return { file_id: e.file?.id ?? null, reply_id: e.file?.reply_id ?? null };
    default:
      return {};
  }
}

/** Every write by support (and by the system on its behalf) on tickets goes to the audit log. */
export function auditTicketEvents(log: AuditLog, clock: () => Date) {
  return async (e: TicketEvent) => {
    if (e.actor.kind === 'customer') return;
    await log.append(auditEntry(clock(), e.actor, e.type, e.ticket.id, { mode: e.mode, ...ticketEventDetails(e) }));
  };
}
