import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// Schema version 9 indexes the logs by time (issue 31/33): the popular articles' tally and the
// prunes of retention select rows by `at`. This file runs in the `postgres` test project only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('logs by time (schema version 9)', () => {
  it('let the popularity tally and the prune of old views use an index, not read every row', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    const migrated = await sql<{ version: number }[]>`SELECT version FROM schema_migrations WHERE version = 9`;
    expect(migrated).toHaveLength(1);
    // A table this small is read whole whatever the indexes: the planner is told to avoid that, so the
    // plan shows whether an index can answer by time at all.
    const plan = (query: string) =>
      sql.begin(async (tx) => {
        await tx`SET LOCAL enable_seqscan = off`;
        const rows = await tx.unsafe(query);
        return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      });
    expect(
      await plan(`EXPLAIN SELECT count(*) FROM logs WHERE log = 'kb_feedback' AND entry->>'mode' = 'live'
        AND entry->>'at' >= '2026-01-01T00:00:00.000Z' AND entry->>'at' < '2026-04-01T00:00:00.000Z'`),
    ).toContain('logs_at');
    expect(
      await plan(`EXPLAIN DELETE FROM logs WHERE log = 'kb_feedback' AND entry->>'view' = 'true'
        AND entry->>'at' < '2026-01-01T00:00:00.000Z'`),
    ).toContain('logs_at');
  });
});
