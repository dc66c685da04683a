import type { ConfigData } from '../model/index.js';
import type { TicketStore } from '../store/ticket-store.js';

/**
 * Who a new ticket goes to (`/admin r=assignment`): with round robin, the agent of the list who is
 * active and available (their profile) and was given a new ticket longest ago, judged by the newest
 * ticket assigned to each; agents who have none yet come first, in the list's order. Kept in the
 * tickets themselves, so every instance and a restart see the same turn. Null when off or nobody is
 * available.
 */
export async function nextAssignee(config: ConfigData, tickets: TicketStore): Promise<string | null> {
  const { mode, agents } = config.assignment;
  if (mode !== 'round_robin') return null;
  const ready = agents.filter((id) => config.agents.some((a) => a.id === id && a.active && a.available));
  let next: { id: string; last: string } | undefined;
  for (const id of ready) {
    const { items } = await tickets.list({ agent_id: id }, 1, 0);
    const last = items[0]?.created_at ?? '';
    if (!next || last < next.last) next = { id, last };
  }
  return next?.id ?? null;
}
