import { afterEach, describe, expect, it } from 'vitest';
import { mergeableTickets, misplacedMessages } from '../test-support/merges.js';
import { startServer, type TestServer } from '../test-support/server.js';

// Issue 32: /merge checked `merged_into` before it wrote. Merging A into B and B into A at the same time
// both passed the checks, each moved its messages to the other, then closed its own ticket without
// replies: both answered 200 and the messages were on neither ticket. Runs on both stores.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const merge = (s: TestServer, from: string, into: string) =>
  s.call('POST', '/merge', { json: { ticket_id: from, into_id: into } });

const PAIRS = 12;

describe('merges crossing each other (issue 32)', () => {
  it('of A into B and B into A, all fired at once for many pairs, exactly one succeeds and the other is 400; no message is lost or doubled', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const pairs = await Promise.all(Array.from({ length: PAIRS }, (_, p) => mergeableTickets(s, 2, `pair${p}`)));
    const answers = await Promise.all(
      pairs.map(async ({ ids: [a, b] }) => Promise.all([merge(s, a!, b!), merge(s, b!, a!)])),
    );
    const lines = answers.map((two) => two.map((r) => `${r.status} ${r.body?.error?.code ?? ''}`.trim()).sort());
    expect(lines).toEqual(pairs.map(() => ['200', '400 validation_failed']));
    const problems = [];
    for (const { ids, texts } of pairs) problems.push(...(await misplacedMessages(s, ids, texts)));
    expect(problems).toEqual([]);
  }, 120_000);

  it('chained and circular at once (A into B, B into C, C into A) end consistent: every message on one ticket, no loop', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const groups = await Promise.all(Array.from({ length: 8 }, (_, g) => mergeableTickets(s, 3, `chain${g}`)));
    const answers = await Promise.all(
      groups.map(({ ids: [a, b, c] }, g) =>
        // Half the groups a chain, half a circle (which can never be merged whole).
        Promise.all([merge(s, a!, b!), merge(s, b!, c!), ...(g % 2 ? [merge(s, c!, a!)] : [])]),
      ),
    );
    for (const r of answers.flat()) expect([200, 400], r.text).toContain(r.status);
    // A circle of three: at most two of its merges can succeed.
    for (const [g, three] of answers.entries())
      if (g % 2) expect(three.filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
    const problems = [];
    for (const { ids, texts } of groups) problems.push(...(await misplacedMessages(s, ids, texts)));
    expect(problems).toEqual([]);
  }, 120_000);
});
