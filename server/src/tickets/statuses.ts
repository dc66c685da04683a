import type { ConfigData, Status, Ticket } from '../model/index.js';
import type { StoredTicket } from '../store/ticket-store.js';

// The status list always holds at least one open and one closed status (checked when it is written).

export const firstOpenStatus = (statuses: Status[]) => (statuses.find((s) => !s.closed) ?? statuses[0]!).id;
export const firstClosedStatus = (statuses: Status[]) => (statuses.find((s) => s.closed) ?? statuses[0]!).id;
export const isClosedStatus = (statuses: Status[], id: string) => statuses.some((s) => s.id === id && s.closed);

/** Entering a closed status sets closed_at (and settles a pending close request); leaving one clears it. */
export function setStatus<T extends Ticket>(t: T, status: string, statuses: Status[], at: string): T {
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

/**
 * What a customer's message does to their ticket (/reply, mail in): a ticket waiting on them (`pending`,
 * or the workflow's reply_status) or closed goes back to the first open status, and a
 * snooze ends.
 */
export function afterCustomerMessage<T extends StoredTicket>(t: T, config: ConfigData, at: string): T {
  const { statuses } = config;
  // `pending` is the built-in "waiting on the customer", whatever reply_status says.
  const waiting = t.status === 'pending' || t.status === config.workflow.reply_status;
  let next = t;
  if (isClosedStatus(statuses, t.status) || waiting) next = setStatus(next, firstOpenStatus(statuses), statuses, at);
  if (next.snoozed_until !== undefined) next = withoutSnooze(next);
  return next;
}

/** The ticket without its snooze (the key goes: a ticket never snoozed has none). */
export function withoutSnooze<T extends StoredTicket>(t: T): T {
  const { snoozed_until: _s, ...rest } = t;
  return rest as T;
}

/**
 * The status a support reply leaves: the one it names, else its macro's, else the workflow's
 * reply_status while that is a configured open status; undefined keeps the status.
 */
export function replyStatus(config: ConfigData, named: string | undefined, macroStatus: string | null | undefined) {
  const { statuses } = config;
  if (named !== undefined) return named;
  if (macroStatus && statuses.some((s) => s.id === macroStatus)) return macroStatus;
  const fallback = config.workflow.reply_status;
  return fallback !== null && statuses.some((s) => s.id === fallback && !s.closed) ? fallback : undefined;
}
