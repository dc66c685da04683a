import { fill, type Strings } from '../i18n/t.js';

/**
 * The list's count: "1 ticket", "42 tickets", or "500+ tickets" when a search's `total` is a lower
 * bound (`total_capped`: PostgreSQL ranked only the newest matches of a common query, issue 32).
 */
export function ticketCount(t: Strings, total: number, capped: boolean): string {
  if (capped) return fill(t.ticketCountCapped, { n: total });
  return total === 1 ? t.ticketCountOne : fill(t.ticketCount, { n: total });
}
