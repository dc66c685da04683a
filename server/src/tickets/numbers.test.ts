import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, removeStore, startServer, type TestServer } from '../test-support/server.js';

// Ticket numbers (#1042), on whichever store the run is on: given in creation order per mode from
// 1001, unique and without gaps under concurrent creates that all succeed (on PostgreSQL a create that
// fails leaves its number unused: postgres/create-batch.test.ts), never given again after a delete and
// a restart; a ticket is read by its number with the same proof as by its id.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(options: Parameters<typeof startServer>[0] = {}) {
  const s = await startServer(options);
  cleanup.push(() => s.close());
  return s;
}

const numbersOf = async (s: TestServer, key = s.keys.sk) =>
  ((await s.call('GET', '/list?limit=200', { key })).body.data as { number: number }[])
    .map((t) => t.number)
    .sort((a, b) => a - b);

describe('ticket numbers', () => {
  it('are given from 1001 in creation order, live and test apart, and shown in every view', async () => {
    const s = await server();
    const a = await createTicket(s);
    const b = await createTicket(s, { email: 'grace@example.com' });
    const testMode = await createTicket(s, {}, s.keys.pkTest);
    expect([a.number, b.number]).toEqual([1001, 1002]);
    expect(testMode.number).toBe(1001); // test mode counts on its own
    const c = await createTicket(s);
    expect(c.number).toBe(1003);
    expect(await numbersOf(s)).toEqual([1001, 1002, 1003]);
    expect((await s.call('GET', `/ticket?id=${b.id}`)).body.number).toBe(1002);
    expect((await s.call('GET', `/ticket?id=${b.id}&email=grace@example.com`, { key: s.keys.pk })).body.number).toBe(
      1002,
    );
  });

  it('reads a ticket by its number, with the same proof as by id', async () => {
    const s = await server();
    const a = await createTicket(s);
    const b = await createTicket(s, { email: 'grace@example.com' });
    const bySk = await s.call('GET', '/ticket?number=1002');
    expect(bySk.status).toBe(200);
    expect(bySk.body.id).toBe(b.id);
    const byPk = await s.call('GET', '/ticket?number=1001&email=ada@example.com', { key: s.keys.pk });
    expect(byPk.status).toBe(200);
    expect(byPk.body.id).toBe(a.id);
    expect(byPk.body).not.toHaveProperty('tags'); // the customer's view
    // A public key without the email, or with another customer's, learns nothing.
    const noProof = await s.call('GET', '/ticket?number=1001', { key: s.keys.pk });
    expect(noProof.status).toBe(400);
    expect(noProof.body.error).toMatchObject({ code: 'validation_failed', param: 'email' });
    const wrong = await s.call('GET', '/ticket?number=1001&email=grace@example.com', { key: s.keys.pk });
    const unknown = await s.call('GET', '/ticket?number=1999&email=grace@example.com', { key: s.keys.pk });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('ticket_not_found');
    // A number of the other mode is not this mode's.
    expect((await s.call('GET', '/ticket?number=1001', { key: s.keys.skTest })).status).toBe(404);
    // Bad numbers, both or neither of id and number: 400 in the API's shape, never a 500.
    for (const [query, param] of [
      ['number=abc', 'number'],
      ['number=0', 'number'],
      ['number=99999999999', 'number'],
      ['number=1.5', 'number'],
      [`number=1001&id=${a.id}`, 'number'],
      ['', 'id'],
    ] as const) {
      const res = await s.call('GET', `/ticket?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ code: 'validation_failed', param });
    }
  });

  it('are distinct and consecutive when many tickets are created at once', async () => {
    const s = await server();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => createTicket(s, { email: `c${i}@example.com` })),
    );
    const numbers = created.map((t) => t.number as number).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => 1001 + i));
    expect(await numbersOf(s)).toEqual(numbers);
  });

  it("never gives a deleted ticket's number again, also after a restart", async () => {
    const first = await startServer();
    const { dataDir, keys } = first;
    cleanup.push(() => removeStore(dataDir));
    await createTicket(first);
    const last = await createTicket(first);
    expect(last.number).toBe(1002);
    expect((await first.call('DELETE', `/delete?ticket_id=${last.id}`)).status).toBe(200);
    expect((await createTicket(first)).number).toBe(1003);
    const third = (await first.call('GET', '/ticket?number=1003')).body;
    expect((await first.call('DELETE', `/delete?ticket_id=${third.id}`)).status).toBe(200);
    await first.close({ keepData: true });

    const again = await startServer({ dataDir, keys });
    cleanup.push(() => again.close({ keepData: true }));
    // The highest number any ticket had is gone with its ticket; the next is still after it.
    expect(await numbersOf(again)).toEqual([1001]);
    expect((await createTicket(again)).number).toBe(1004);
  });
});
