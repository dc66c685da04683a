import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// Schema version 2 added the inbox's columns; rows stored before it get them when a server starts.
// This file runs in the `postgres` test project only (vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('the inbox columns of tickets stored before schema version 2', () => {
  it('are filled in at start, so views, search and the new row fields work on old tickets', async () => {
    const a = await startServer();
    cleanup.push(() => a.close());
    const t = await createTicket(a, { subject: 'Old ticket' });
    await a.call('POST', '/reply', { json: { ticket_id: t.id, message: 'an old reply with quokka' } });
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // As version 1 left it: no new columns, a list view without the new fields, no replies in search.
    await sql`
      UPDATE tickets SET last_activity_at = NULL, waiting_us = NULL, due_at = NULL, priority_rank = NULL,
        item = item - 'last_activity_at' - 'waiting_on' - 'last_message', search = lower(data->>'subject')
      WHERE id = ${t.id}`;
    expect((await a.call('GET', '/list?q=quokka')).body.total).toBe(0);

    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    const found = await b.call('GET', '/list?q=quokka&view=open&sort=activity');
    expect(found.body.total).toBe(1);
    expect(found.body.data[0]).toMatchObject({
      id: t.id,
      waiting_on: 'customer',
      last_message: { from_customer: false, preview: 'an old reply with quokka' },
    });
    const [row] = await sql`SELECT last_activity_at, waiting_us, priority_rank FROM tickets WHERE id = ${t.id}`;
    expect(row).toMatchObject({ waiting_us: false, priority_rank: 1 });
    expect(row!.last_activity_at).toBeTruthy();
  });
});
