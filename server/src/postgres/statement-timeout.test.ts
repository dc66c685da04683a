import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer } from '../test-support/server.js';

// A statement that outlives TICKETING_DATABASE_STATEMENT_TIMEOUT_MS (SQLSTATE 57014) is one slow
// request, not an outage: it answers 503 `unavailable` with Retry-After, is logged once at warn, and
// the database is not taken for gone (the next request answers at once). The slow statement is made
// real: another session holds the tickets table locked while /v1/search waits for it.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('a statement timeout', () => {
  it('answers 503 unavailable with Retry-After, logs one warning, and the next request is answered', async () => {
    const s = await startServer({
      env: { TICKETING_SCHEDULER_SECONDS: '0', TICKETING_DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
    });
    cleanup.push(() => s.close());
    const ticket = await createTicket(s, { subject: 'Kettle whistles' });
    expect((await s.call('GET', '/search?q=kettle')).body.total).toBe(1);

    const admin = postgres(s.databaseUrl!, { max: 1, onnotice: () => {} });
    cleanup.push(() => admin.end());
    const locked = admin.reserve();
    const conn = await locked;
    await conn`BEGIN`;
    await conn`LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE`;
    const began = performance.now();
    const slow = await s.call('GET', '/search?q=kettle');
    const took = performance.now() - began;
    await conn`ROLLBACK`;
    conn.release();

    expect(slow.status).toBe(503);
    expect(slow.body.error).toMatchObject({ code: 'unavailable' });
    expect(slow.headers.get('retry-after')).toBe('5');
    expect(slow.text).not.toMatch(/57014|statement timeout|at .*\.js/);
    expect(took).toBeGreaterThanOrEqual(900); // it did wait for the statement's timeout
    // Not an outage: the next request is answered, /ready too, and nobody logged the database gone.
    const next = await s.call('GET', '/search?q=kettle');
    expect(next.status).toBe(200);
    expect(next.body.data.map((t: { id: string }) => t.id)).toEqual([ticket.id]);
    expect((await s.call('GET', `${s.url}/ready`, { key: null })).status).toBe(200);
    await eventually(() => s.logs.some((l) => l.includes('took too long')), 5_000, 'the warning');
    const warned = s.logs.filter((l) => l.includes('took too long'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('"level":40');
    expect(s.logs.filter((l) => l.includes('database unreachable'))).toEqual([]);
    expect(s.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
