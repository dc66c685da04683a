import { RULE_EVENTS, type Condition } from '../model/index.js';
import type { TicketEvent } from '../events/events.js';
import { runActions, type AutomationDeps } from './actions.js';

/** The value a condition looks at, as text. On a reply, `message` and `from_customer` are the reply's. */
function fieldValue(c: Condition, e: TicketEvent): string {
  const t = e.ticket;
  switch (c.field) {
    case 'message':
      return e.reply?.message ?? t.message;
    case 'from_customer':
      return String(e.reply ? e.reply.from_customer : e.actor.kind === 'customer');
    case 'category':
      return t.category ?? '';
    default:
      return String(t[c.field]);
  }
}

/** Text comparisons ignore case (API.md, rules). */
function conditionHolds(c: Condition, e: TicketEvent): boolean {
  const value = fieldValue(c, e).toLowerCase();
  const want = c.value.toLowerCase();
  switch (c.op) {
    case 'equals':
      return value === want;
    case 'not_equals':
      return value !== want;
    case 'contains':
      return value.includes(want);
    case 'starts_with':
      return value.startsWith(want);
    case 'ends_with':
      return value.endsWith(want);
  }
}

const RULE_EVENT_SET = new Set<string>(RULE_EVENTS);

/**
 * Runs the enabled rules for the event, in order; every condition of a rule must hold. Each rule sees
 * the ticket as the rules before it left it. Changes made by rules do not raise events of their own,
 * so rules cannot trigger each other in a loop.
 */
export function rulesListener(deps: AutomationDeps) {
  return async (e: TicketEvent) => {
    if (!RULE_EVENT_SET.has(e.type)) return;
    let ticket = e.ticket;
    for (const rule of deps.configStore.get().rules) {
      if (!rule.enabled || rule.event !== e.type) continue;
      if (!rule.conditions.every((c) => conditionHolds(c, { ...e, ticket }))) continue;
      ticket =
        (await runActions(deps, e.mode, ticket.id, rule.actions, { kind: 'rule', id: rule.id }, e.type)) ?? ticket;
    }
    return ticket;
  };
}
