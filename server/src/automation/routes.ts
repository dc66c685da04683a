import { notFound } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import {
  RulesTestInputSchema,
  RulesTestResultSchema,
  type Action,
  type KeyMode,
  type RuleCheck,
  type Ticket,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';
import { applyActions, fits } from './actions.js';
import { runRules } from './rules.js';

const route = routeFor<{ configStore: ConfigStore; tickets: Record<KeyMode, TicketStore>; clock: () => Date }>();

const target = (t: Ticket) => ({ status: t.status, priority: t.priority, agent_id: t.agent_id, tags: t.tags });

/**
 * The rules builder's "test against a ticket": the listener's own matching and the runner's own action
 * code (automation/rules.ts, actions.ts), with the changes computed and not stored, and nothing sent.
 */
const test = route({
  method: 'post',
  path: '/rules/test',
  access: 'admin',
  summary: 'Try rules on a stored ticket without changing it',
  description:
    'Runs the given rules (or the saved ones) for `event` on the ticket as the server would, and answers ' +
    'which would act, each condition with the value it looked at, and the ticket as they would leave it. ' +
    "Nothing is stored, sent or logged. On ticket.replied the ticket's last reply that is not an internal " +
    'note is the reply; on ticket.created a customer is taken to have filed the ticket.',
  body: { schema: RulesTestInputSchema, encodings: ['json'] },
  responses: { 200: { description: 'What the rules would do', schema: RulesTestResultSchema } },
  errors: { 404: ['ticket_not_found'] },
  async handler({ actor, body }, deps) {
    const stored = await deps.tickets[actor.mode].get(body.ticket_id);
    if (!stored) throw notFound('ticket');
    const config = deps.configStore.get();
    const rules = body.rules ?? config.rules;
    const now = deps.clock().toISOString();
    const checks: RuleCheck[] = [];
    const sends: Action[] = [];
    const reply = body.event === 'ticket.replied' ? stored.replies.findLast((r) => !r.internal) : undefined;
    const byCustomer = body.event === 'ticket.created' || (reply?.from_customer ?? false);
    const after = await runRules(
      rules,
      { type: body.event, ticket: structuredClone(stored), reply, byCustomer },
      async (rule, ticket) => {
        const result = applyActions(ticket, rule.actions, config, now);
        sends.push(...result.applied.filter((a) => a.type === 'notify' || a.type === 'webhook'));
        return result.ticket;
      },
      (rule, verdict) =>
        checks.push({
          id: rule.id,
          name: rule.name,
          fires: verdict.fires,
          reason: verdict.reason,
          conditions: verdict.conditions.map((c) => ({
            ...c.condition,
            actual: c.actual.slice(0, 200),
            holds: c.holds,
          })),
          actions: rule.actions.map((a) => ({ ...a, applies: fits(a, config) })),
        }),
    );
    return {
      body: {
        ticket_id: stored.id,
        event: body.event,
        rules: checks,
        before: target(stored),
        after: target(after),
        sends,
        tested_at: now,
      },
    };
  },
});

export const automationRoutes = [test];
