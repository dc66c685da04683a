import type { Status } from '../api-types.js';

// The status list always holds at least one open and one closed status (checked when it is written).

export const firstOpenStatus = (statuses: Status[]) => (statuses.find((s) => !s.closed) ?? statuses[0]!).id;
export const firstClosedStatus = (statuses: Status[]) => (statuses.find((s) => s.closed) ?? statuses[0]!).id;
export const isClosedStatus = (statuses: Status[], id: string) => statuses.some((s) => s.id === id && s.closed);
