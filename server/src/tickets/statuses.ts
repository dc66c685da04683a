import type { Status, Ticket } from '../model/index.js';

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
