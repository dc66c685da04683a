import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { TICKETING_RATE_LIMIT: 'off' } });
});
afterAll(() => s.close());

type Page = { replies: { id: string; message: string }[]; older_replies?: { count: number; cursor: string } | null };

/** Every page from the newest back, following older_replies.cursor. */
async function allPages(path: string, key: string, limit: number) {
  const pages: Page[] = [];
  let url = `${path}&messages_limit=${limit}`;
  for (;;) {
    const res = await s.call('GET', url, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
    pages.push(res.body as Page);
    const older = (res.body as Page).older_replies;
    if (!older) return pages;
    url = `${path}&messages_limit=${limit}&messages_before=${older.cursor}`;
  }
}

describe('a ticket’s thread a page at a time (issue 33)', () => {
  it('pages from the newest back in the caller’s view; without the parameters the whole thread, as before', async () => {
    const t = await createTicket(s);
    const proof = `/ticket?id=${t.id}&email=ada%40example.com`;
    for (let i = 0; i < 7; i++) {
      const internal = i === 2 || i === 5;
      const res = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: `m${i}`, internal } });
      expect(res.status).toBe(201);
    }
    const whole = await s.call('GET', `/ticket?id=${t.id}`);
    expect(whole.body.replies).toHaveLength(7);
    expect(whole.body).not.toHaveProperty('older_replies');
    expect(whole.headers.get('etag')).toBeTruthy();

    // Support: seven messages, notes included, in pages of three: 3, 3, 1.
    const staff = await allPages(`/ticket?id=${t.id}`, s.keys.sk, 3);
    expect(staff.map((p) => p.replies.map((r) => r.message))).toEqual([['m4', 'm5', 'm6'], ['m1', 'm2', 'm3'], ['m0']]);
    expect(staff.map((p) => p.older_replies?.count ?? null)).toEqual([4, 1, null]);

    // The customer: five replies, no note counted or named.
    const customer = await allPages(proof, s.keys.pk, 2);
    expect(customer.map((p) => p.replies.map((r) => r.message))).toEqual([['m4', 'm6'], ['m1', 'm3'], ['m0']]);
    expect(customer[0]!.older_replies!.count).toBe(3);
    const note = (whole.body.replies as { id: string; internal?: boolean }[]).find((r) => r.internal)!;
    const hidden = await s.call('GET', `${proof}&messages_before=${note.id}`, { key: s.keys.pk });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error).toMatchObject({ code: 'validation_failed', param: 'messages_before' });

    // messages_before alone: 50 replies before it.
    const before = await s.call('GET', `/ticket?id=${t.id}&messages_before=${whole.body.replies[3].id}`);
    expect(before.body.replies.map((r: { message: string }) => r.message)).toEqual(['m0', 'm1', 'm2']);
    expect(before.body.older_replies).toBeNull();

    // Out of range, or not a number: the error shape, never a 500.
    for (const bad of ['0', '201', 'ten'])
      expect((await s.call('GET', `/ticket?id=${t.id}&messages_limit=${bad}`)).body.error?.code, bad).toBe(
        'validation_failed',
      );
    // Someone else's ticket is still not found, page or not.
    const other = await s.call('GET', `/ticket?id=${t.id}&email=eve%40example.com&messages_limit=2`, {
      key: s.keys.pk,
    });
    expect(other.status).toBe(404);
  });
});
