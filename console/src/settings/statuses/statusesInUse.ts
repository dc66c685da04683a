import type { ApiError } from '../../api/client.js';

/**
 * What a 409 status_in_use says, per status: the server's details name the status in quotes and say
 * either how many tickets have it or which settings name it (server/src/settings/resources.ts).
 */
export type InUse = Record<string, ({ tickets: number } | { usedBy: string } | { other: string })[]>;

export function statusesInUse(failure: Pick<ApiError, 'details'>): InUse {
  const out: InUse = {};
  for (const { message } of failure.details) {
    const id = /^"([^"]+)"/.exec(message)?.[1];
    if (!id) continue;
    const count = /status of (\d+) ticket/.exec(message);
    const uses = /still used by (.+)$/.exec(message);
    (out[id] ??= []).push(count ? { tickets: Number(count[1]) } : uses ? { usedBy: uses[1]! } : { other: message });
  }
  return out;
}

/** The list as it was before the refused save put back: each status kept, where it stood. */
export function putBack<T extends { id: string }>(draft: T[], saved: T[], kept: Iterable<string>): T[] {
  const ids = new Set(kept);
  const back = [...draft];
  saved.forEach((s, i) => {
    if (ids.has(s.id) && !back.some((x) => x.id === s.id)) back.splice(Math.min(i, back.length), 0, s);
  });
  return back;
}
