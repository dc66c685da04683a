import type { Actor, TicketEvent } from '../events.js';
import { newId } from '../store/ids.js';
import type { AppendLog } from '../store/append-log.js';

export interface AuditEntry {
  id: string;
  at: string;
  actor: Actor;
  action: string;
  target: string | null;
  /** Ids and changed values only; never a secret, a message body or a password. */
  details: Record<string, unknown>;
}

export type AuditLog = AppendLog<AuditEntry>;

export function auditEntry(
  at: Date,
  actor: Actor,
  action: string,
  target: string | null,
  details: Record<string, unknown> = {},
): AuditEntry {
  return { id: newId('aud'), at: at.toISOString(), actor, action, target, details };
}

/** What an audit entry says about a ticket event: what changed, by id, never the texts. */
export function ticketEventDetails(e: TicketEvent): Record<string, unknown> {
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
    case 'ticket.rated':
      return { score: e.ticket.rating?.score ?? null };
    case 'ticket.close_resolved':
      return { status: e.ticket.status };
    case 'file.uploaded':
      return { file_id: e.file?.id ?? null, reply_id: e.file?.reply_id ?? null };
    default:
      return {};
  }
}

/** Every write by a secret key (and by the system on its behalf) on tickets goes to the audit log. */
export function auditTicketEvents(log: AuditLog, clock: () => Date) {
  return async (e: TicketEvent) => {
    if (e.actor.kind === 'public') return;
    await log.append(auditEntry(clock(), e.actor, e.type, e.ticket.id, { mode: e.mode, ...ticketEventDetails(e) }));
  };
}
