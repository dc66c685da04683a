import { RULE_EVENTS, type Condition, type Reply, type Rule, type Ticket } from '../model/index.js';
import type { TicketEvent, TicketEventType } from '../events/events.js';
import { runActions, type AutomationDeps } from './actions.js';

/**
 * What a rule's conditions look at: the event, the ticket as the rules before left it, the reply on
 * ticket.replied, and whether a customer acted. The listener makes it from the event; /rules/test
 * from a stored ticket.
 */
export interface RuleInput {
  type: TicketEventType;
  ticket: Ticket;
  reply?: Reply | undefined;
  byCustomer: boolean;
}

/** The value a condition looks at, as text. On a reply, `message` and `from_customer` are the reply's. */
function fieldValue(c: Condition, x: RuleInput): string {
  const t = x.ticket;
  switch (c.field) {
    case 'message':
      return x.reply?.message ?? t.message;
    case 'from_customer':
      return String(x.reply ? x.reply.from_customer : x.byCustomer);
    case 'category':
      return t.category ?? '';
    default:
      return String(t[c.field]);
  }
}

/** Text comparisons ignore case (API.md, rules). */
function conditionHolds(c: Condition, value: string): boolean {
  const v = value.toLowerCase();
  const want = c.value.toLowerCase();
  switch (c.op) {
    case 'equals':
      return v === want;
    case 'not_equals':
      return v !== want;
    case 'contains':
      return v.includes(want);
    case 'starts_with':
      return v.startsWith(want);
    case 'ends_with':
      return v.endsWith(want);
  }
}

/** Whether a rule acts on the input, and why not; each condition with the value it looked at. */
export interface RuleVerdict {
  fires: boolean;
  reason: 'disabled' | 'other_event' | 'conditions' | null;
  conditions: { condition: Condition; actual: string; holds: boolean }[];
}

function judgeRule(rule: Rule, x: RuleInput): RuleVerdict {
  const conditions = rule.conditions.map((condition) => {
    const actual = fieldValue(condition, x);
    return { condition, actual, holds: conditionHolds(condition, actual) };
  });
  const reason = !rule.enabled
    ? 'disabled'
    : rule.event !== x.type
      ? 'other_event'
      : conditions.every((c) => c.holds)
        ? null
        : 'conditions';
  return { fires: reason === null, reason, conditions };
}

/**
 * Runs the rules for the event, in order; every condition of a rule must hold. Each rule sees the
 * ticket as the rules before it left it: `act` applies a firing rule and answers the ticket as it left
 * it (stored by the listener, only computed by /rules/test). `seen` hears every rule's verdict.
 */
export async function runRules(
  rules: Rule[],
  input: RuleInput,
  act: (rule: Rule, ticket: Ticket) => Promise<Ticket | undefined>,
  seen?: (rule: Rule, verdict: RuleVerdict, ticket: Ticket) => void,
): Promise<Ticket> {
  let ticket = input.ticket;
  for (const rule of rules) {
    const verdict = judgeRule(rule, { ...input, ticket });
    seen?.(rule, verdict, ticket);
    if (verdict.fires) ticket = (await act(rule, ticket)) ?? ticket;
  }
  return ticket;
}

const RULE_EVENT_SET = new Set<string>(RULE_EVENTS);

/**
 * The rules on ticket events. Changes made by rules do not raise events of their own, so rules cannot
 * trigger each other in a loop.
 */
export function rulesListener(deps: AutomationDeps) {
  return async (e: TicketEvent) => {
    if (!RULE_EVENT_SET.has(e.type)) return;
    // A mail that only claims to be the customer's (issue 28) must not act as their reply: no rule
    // reopens, mails or moves the ticket on its word.
    if (e.reply?.unverified) return;
    return runRules(
      deps.configStore.get().rules,
      { type: e.type, ticket: e.ticket, reply: e.reply, byCustomer: e.actor.kind === 'customer' },
      (rule, ticket) => runActions(deps, e.mode, ticket.id, rule.actions, { kind: 'rule', id: rule.id }, e.type),
    );
  };
}
