import type { Logger } from 'pino';
import { auditEntry, type AuditLog } from '../audit/audit.js';
import { PRIORITIES, SYSTEM, type Action, type ConfigData, type Priority, type Ticket } from '../model/index.js';
import type { TicketEventType } from '../events/events.js';
import { queueAgentMail } from '../mail/agent-mail.js';
import { ruleNotifyMail } from '../mail/templates.js';
import { mailConfigured } from '../mail/mailer.js';
import type { Outbox } from '../outbox/outbox.js';
import type { ConfigStore } from '../store/config-store.js';
import type { KeyMode, StoredTicket, TicketStore } from '../store/ticket-store.js';
import { withActivity } from '../tickets/activity.js';
import { setStatus } from '../tickets/statuses.js';
import { enqueueWebhook } from '../webhooks/deliver.js';
import { derive } from '../tickets/sla.js';

/** What rules and escalations need (the app's Deps provides it). */
export interface AutomationDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  outbox: Outbox;
  audit: AuditLog;
  logger: Logger;
  clock: () => Date;
  publicUrl: () => string;
}

/**
 * Applies actions of a rule or an escalation entry to one ticket: field changes in one durable write
 * (with due_at recomputed), mail and webhooks through the outbox, each applied action in the audit log.
 * Actions that no longer fit the configuration (a removed status or agent) are skipped and logged.
 */
export async function runActions(
  deps: AutomationDeps,
  mode: KeyMode,
  ticketId: string,
  actions: Action[],
  source: { kind: 'rule' | 'escalation'; id: string },
  event: TicketEventType,
  /** A change to make in the same write whatever the actions do (the scheduler marks an escalation fired). */
  mark?: (t: StoredTicket) => StoredTicket,
  /**
   * Checked on the latest record, under the ticket's lock: when it holds, nothing is applied (an
   * escalation another scheduler pass has fired meanwhile fires no second time).
   */
  skip?: (t: StoredTicket) => boolean,
): Promise<Ticket | undefined> {
  const config = deps.configStore.get();
  const applied: Action[] = [];
  const now = () => deps.clock().toISOString();
  let skipped = false;
  const updated = await deps.tickets[mode].update(ticketId, (current) => {
    if (skip?.(current)) {
      skipped = true;
      return { ticket: current };
    }
    const result = applyActions(current, actions, config, now());
    for (const a of result.skipped)
      deps.logger.warn(
        { ticket: ticketId, source, action: a.type },
        'automation: action skipped, it no longer fits the configuration',
      );
    applied.splice(0, applied.length, ...result.applied);
    const t = result.ticket;
    const changed = applied.some((a) => a.type !== 'notify' && a.type !== 'webhook');
    // The ticket's activity shows these changes as the system's.
    const next = changed ? derive(withActivity(current, { ...t, updated_at: now() }, SYSTEM, now()), config) : current;
    return { ticket: mark ? mark(next) : next };
  });
  if (!updated || skipped) return undefined;
  for (const a of applied) {
    if (a.type === 'notify' && mailConfigured(config.mail)) {
      // An agent's address gets their own Reply-To, so they can answer the rule's mail by mail.
      await queueAgentMail(deps, config, mode, updated.id, [a.value], (to, canReply) =>
        ruleNotifyMail(updated, to[0]!, `${source.kind} ${source.id}`, deps.publicUrl(), canReply),
      );
    }
    if (a.type === 'webhook') await enqueueWebhook(deps.outbox, a.value, event, updated, deps.clock(), mode);
    await deps.audit.append(
      auditEntry(deps.clock(), SYSTEM, `${source.kind}.${a.type}`, ticketId, {
        [source.kind]: source.id,
        value: a.value,
        mode,
      }),
    );
  }
  return updated;
}

/**
 * The ticket with `actions` applied (pure: runActions stores the result, /rules/test only shows it).
 * `applied`: the actions that take effect (a tag the ticket has already is no change); `skipped`: the
 * ones that no longer fit the configuration (a removed status or agent).
 */
export function applyActions(
  ticket: Ticket,
  actions: Action[],
  config: ConfigData,
  now: string,
): { ticket: Ticket; applied: Action[]; skipped: Action[] } {
  let t: Ticket = structuredClone(ticket);
  const applied: Action[] = [];
  const skipped: Action[] = [];
  for (const a of actions) {
    if (!fits(a, config)) {
      skipped.push(a);
      continue;
    }
    if (a.type === 'set_priority') t = { ...t, priority: a.value as Priority };
    else if (a.type === 'set_status') t = setStatus(t, a.value, config.statuses, now);
    else if (a.type === 'assign') t = { ...t, agent_id: a.value };
    else if (a.type === 'add_tag' && !t.tags.includes(a.value)) t = { ...t, tags: [...t.tags, a.value] };
    else if (a.type !== 'notify' && a.type !== 'webhook') continue;
    applied.push(a);
  }
  return { ticket: t, applied, skipped };
}

export function fits(a: Action, config: ConfigData): boolean {
  if (a.type === 'set_status') return config.statuses.some((s) => s.id === a.value);
  if (a.type === 'assign') return config.agents.some((g) => g.id === a.value);
  if (a.type === 'set_priority') return (PRIORITIES as readonly string[]).includes(a.value);
  return true;
}
