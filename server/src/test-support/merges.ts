import { createTicket, type TestServer } from './server.js';

/**
 * Tickets of one customer, each with a message, a reply and an internal note of texts found nowhere
 * else, for merges to move about: answers their ids and every text they hold.
 */
export async function mergeableTickets(s: TestServer, count: number, tag: string) {
  const email = `${tag}@example.com`;
  const made = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const message = `${tag} ticket ${i}: where is my teapot?`;
      const { id } = await createTicket(s, { email, message }, s.keys.sk);
      const replies = [`${tag} ticket ${i}: a reply`, `${tag} ticket ${i}: a note`];
      for (const [r, text] of replies.entries()) {
        const res = await s.call('POST', '/reply', { json: { ticket_id: id, message: text, internal: r === 1 } });
        if (res.status !== 201) throw new Error(`reply failed: ${res.status} ${res.text}`);
      }
      return { id, texts: [message, ...replies] };
    }),
  );
  return { ids: made.map((m) => m.id), texts: made.flatMap((m) => m.texts) };
}

/**
 * What is wrong with where the texts of `ids` now are, as lines (none: all is well): every text must
 * be on exactly one ticket that was not merged (as its message or a reply); a merged ticket holds no
 * replies, and following `merged_into` from it ends on a ticket that was not merged.
 */
export async function misplacedMessages(s: TestServer, ids: string[], texts: string[]) {
  const tickets = new Map<string, { merged_into?: string; message: string; replies: { message: string }[] }>();
  for (const id of ids) {
    const res = await s.call('GET', `/ticket?id=${id}`);
    if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.text}`);
    tickets.set(id, res.body);
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const [id, t] of tickets) {
    if (t.merged_into) {
      if (t.replies.length) problems.push(`${id} was merged but holds ${t.replies.length} replies`);
      let at = t.merged_into;
      for (let hops = 0; tickets.get(at)?.merged_into && hops <= ids.length; hops++) at = tickets.get(at)!.merged_into!;
      if (!tickets.has(at) || tickets.get(at)!.merged_into) problems.push(`${id} merged into a loop or elsewhere`);
      continue;
    }
    for (const text of [t.message, ...t.replies.map((r) => r.message)]) seen.set(text, (seen.get(text) ?? 0) + 1);
  }
  for (const text of texts) if (seen.get(text) !== 1) problems.push(`"${text}" is on ${seen.get(text) ?? 0} tickets`);
  return problems;
}
