import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// /v1/search over HTTP, on whichever store the run is on: every ticket (any status) by number, id,
// email, name, subject, messages, notes and tags, best first; staff only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function shop() {
  const s = await startServer();
  cleanup.push(() => s.close());
  const dishwasher = await createTicket(s, {
    name: 'Ada Lovelace',
    subject: 'Dishwasher leaks',
    message: 'Water everywhere.',
  });
  const order = await createTicket(s, {
    name: 'Bob Builder',
    email: 'bob@example.com',
    subject: 'Order question',
    message: 'Is the dishwasher in stock again?',
  });
  const vip = await createTicket(s, {
    name: 'Grace Hopper',
    email: 'grace@shop.example',
    subject: 'Invoice',
    message: 'Please send the invoice again.',
  });
  await s.call('POST', '/reply', { json: { ticket_id: vip.id, internal: true, message: 'Her quokka ate it.' } });
  await s.call('POST', '/tags', { json: { ticket_id: vip.id, add: ['vip'] } });
  expect((await s.call('POST', '/status', { json: { ticket_id: vip.id, status: 'closed' } })).status).toBe(200);
  return { s, dishwasher, order, vip };
}

const ids = async (s: TestServer, q: string) => {
  const res = await s.call('GET', `/search?q=${encodeURIComponent(q)}`);
  expect(res.status, q).toBe(200);
  return (res.body.data as { id: string }[]).map((t) => t.id);
};

describe('/v1/search', () => {
  it('finds every ticket by what a customer or an agent holds, best first', async () => {
    const { s, dishwasher, order, vip } = await shop();
    // A word: in the subject ranks above in a message; a word's beginning finds it too.
    expect(await ids(s, 'dishwasher')).toEqual([dishwasher.id, order.id]);
    expect(await ids(s, 'DISH')).toEqual([dishwasher.id, order.id]);
    // The number, with or without #, and the id (or its start) name one ticket, first.
    expect((await ids(s, '#1002'))[0]).toBe(order.id);
    expect((await ids(s, '1002'))[0]).toBe(order.id);
    expect(await ids(s, vip.id)).toEqual([vip.id]);
    expect(await ids(s, vip.id.slice(0, 12))).toEqual([vip.id]);
    // The customer's email and name; every word must match.
    expect(await ids(s, 'bob@example.com')).toEqual([order.id]);
    expect(await ids(s, 'grace hopper')).toEqual([vip.id]);
    expect(await ids(s, 'grace dishwasher')).toEqual([]);
    // A closed ticket, by its note and by its tag.
    expect(await ids(s, 'quokka')).toEqual([vip.id]);
    expect(await ids(s, 'vip')).toEqual([vip.id]);
    const answer = await s.call('GET', '/search?q=quokka');
    expect(answer.body).toMatchObject({ total: 1, next_cursor: null, data: [{ id: vip.id, number: 1003 }] });
    expect(answer.body.data[0].status).toBe('closed');
  });

  it("finds by part of an email, a tag's beginning and words from several fields together", async () => {
    const { s, dishwasher, order, vip } = await shop();
    expect((await ids(s, 'example')).sort()).toEqual([dishwasher.id, order.id, vip.id].sort()); // every address
    expect(await ids(s, 'bob@exam')).toEqual([order.id]);
    expect(await ids(s, 'shop')).toEqual([vip.id]); // grace@shop.example
    expect(await ids(s, 'ada@')).toEqual([dishwasher.id]); // what separates words matches nothing by itself
    expect(await ids(s, 'vi')).toEqual([vip.id]); // the tag's beginning
    // Each word may come from another field: the name, a message, the subject, a note.
    expect(await ids(s, 'bob stock')).toEqual([order.id]);
    expect(await ids(s, 'hopper quokka invoice')).toEqual([vip.id]);
    expect(await ids(s, 'lovelace water leaks')).toEqual([dishwasher.id]);
    expect(await ids(s, 'bob quokka')).toEqual([]);
  });

  it('ranks more matches than a page best first and newest first, every one once across the pages', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const made: { id: string; inSubject: boolean }[] = [];
    for (let i = 0; i < 12; i++) {
      const inSubject = i % 3 === 0;
      const t = await createTicket(s, {
        subject: inSubject ? `Kettle ${i}` : `Question ${i}`,
        message: inSubject ? 'It whistles.' : 'About my kettle.',
      });
      made.push({ id: t.id, inSubject });
    }
    await createTicket(s, { subject: 'Toaster', message: 'Burns bread.' });
    // In the subject first (newest first), then in a message (newest first).
    const expected = [...made.filter((t) => t.inSubject).reverse(), ...made.filter((t) => !t.inSubject).reverse()].map(
      (t) => t.id,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { total: number; data: unknown[]; next_cursor: string | null } } =
        await s.call('GET', `/search?q=kett&limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(12);
      seen.push(...(res.body.data as { id: string }[]).map((t) => t.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('follows every write: a reply is found at once, a deleted ticket is gone', async () => {
    const { s, dishwasher } = await shop();
    expect(await ids(s, 'wombat')).toEqual([]);
    await s.call('POST', '/reply', { json: { ticket_id: dishwasher.id, message: 'A wombat will come by.' } });
    expect(await ids(s, 'wombat')).toEqual([dishwasher.id]);
    expect((await s.call('DELETE', `/delete?ticket_id=${dishwasher.id}`)).status).toBe(200);
    expect(await ids(s, 'wombat')).toEqual([]);
    expect(await ids(s, 'leaks')).toEqual([]);
  });

  it('pages with a cursor, and refuses what it cannot take', async () => {
    const { s, dishwasher, order } = await shop();
    const first = await s.call('GET', '/search?q=dishwasher&limit=1');
    expect(first.body).toMatchObject({ total: 2, data: [{ id: dishwasher.id }] });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await s.call('GET', `/search?q=dishwasher&limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ total: 2, data: [{ id: order.id }], next_cursor: null });
    for (const [query, param] of [
      ['', 'q'],
      ['q=%20', 'q'],
      ['q=dish&cursor=nonsense', 'cursor'],
      ['q=dish&limit=0', 'limit'],
    ] as const) {
      const res = await s.call('GET', `/search?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ code: 'validation_failed', param });
    }
    // Punctuation alone matches nothing, without an error.
    expect((await s.call('GET', '/search?q=%40%40')).body).toMatchObject({ total: 0, data: [] });
  });

  it('is for staff only: a public key finds nothing, not even a note', async () => {
    const { s } = await shop();
    const res = await s.call('GET', '/search?q=quokka', { key: s.keys.pk });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
    expect(res.text).not.toContain('quokka');
    // Test mode searches its own tickets only.
    expect((await s.call('GET', '/search?q=dishwasher', { key: s.keys.skTest })).body.total).toBe(0);
  });
});
