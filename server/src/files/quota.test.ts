import { storedFileIds, storedTickets } from '../test-support/stored-tickets.js';
import { statfs } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { createTicket, removeStore, startServer, ticketInput, type TestServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(env: Record<string, string>, clock?: () => Date): Promise<TestServer> {
  const s = await startServer({ env, ...(clock ? { clock } : {}) });
  cleanup.push(() => s.close());
  return s;
}

const KB = 1024;
const MB = 1024 * KB;
const text = (bytes: number) => new Blob([Buffer.alloc(bytes, 'a')], { type: 'text/plain' });

function upload(s: TestServer, ticketId: string, bytes: number, key = s.keys.pk) {
  const form = new FormData();
  form.append('ticket_id', ticketId);
  form.append('email', 'ada@example.com');
  form.append('file', text(bytes), 'notes.txt');
  return s.call('POST', '/upload', { key, multipart: form });
}

function createWithFiles(s: TestServer, sizes: number[], key = s.keys.pk) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticketInput())) form.append(k, String(v));
  for (const size of sizes) form.append('attachments[]', text(size), 'notes.txt');
  return s.call('POST', '/create', { key, multipart: form });
}

/** Attachment bytes stored for every ticket of the live store. */
async function storedFiles(s: TestServer) {
  let n = 0;
  for (const id of (await storedTickets(s)).keys()) n += (await storedFileIds(s, id)).length;
  return n;
}

describe('quotas', () => {
  it('have the documented defaults', () => {
    const c = loadConfig({});
    expect(c.quotas).toEqual({
      ticketFiles: 50,
      ticketBytes: 50 * MB,
      ticketMessages: 500,
      ticketTextChars: 1024 * KB,
      uploadBytesPerHour: 100 * MB,
    });
    expect(c.minFreeDiskBytes).toBe(500 * MB);
  });

  it('refuse a file that would pass the files-per-ticket quota with 413, for any key, storing nothing', async () => {
    const s = await server({ TICKETING_QUOTA_TICKET_FILES: '3' });
    const t = await createTicket(s);
    // Files on replies count too.
    const reply = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Send a photo?' } });
    const onReply = new FormData();
    onReply.append('ticket_id', t.id);
    onReply.append('reply_id', reply.body.replies[0].id);
    onReply.append('file', text(10), 'photo.txt');
    expect((await s.call('POST', '/upload', { multipart: onReply })).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await upload(s, t.id, 10)).status).toBe(201);
    for (const key of [s.keys.pk, s.keys.sk]) {
      const refused = await upload(s, t.id, 10, key);
      expect(refused.status).toBe(413);
      expect(refused.body.error).toMatchObject({ code: 'ticket_quota_exceeded', param: 'file' });
      expect(refused.body.error.message).toContain('at most 3 files');
    }
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.attachments).toHaveLength(2);
    expect(await storedFiles(s)).toBe(3);
    // /create is held to the same quota.
    const four = await createWithFiles(s, [10, 10, 10, 10]);
    expect(four.status).toBe(413);
    expect(four.body.error).toMatchObject({ code: 'ticket_quota_exceeded', param: 'attachments[]' });
    expect((await s.call('GET', '/list')).body.total).toBe(1);
  });

  it('refuse a customer’s reply past a ticket’s messages or text with 413; support may still answer (issue 33)', async () => {
    const s = await server({ TICKETING_QUOTA_TICKET_MESSAGES: '4', TICKETING_QUOTA_TICKET_TEXT_KB: '100' });
    const customer = (t: { id: string }, message: string) =>
      s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: 'ada@example.com', message } });
    // Messages: the ticket's own message and three replies make four.
    const t = await createTicket(s);
    for (let i = 0; i < 2; i++) expect((await customer(t, `more ${i}`)).status).toBe(201);
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'On it.' } })).status).toBe(201);
    const full = await customer(t, 'one more');
    expect(full.status).toBe(413);
    expect(full.body.error).toMatchObject({ code: 'ticket_quota_exceeded', param: 'message' });
    expect(full.body.error.message).toContain('at most 4 messages');
    // Support's replies and notes are still taken, and nothing of the refused one was stored.
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Closing.' } })).status).toBe(201);
    const thread = (await s.call('GET', `/ticket?id=${t.id}`)).body;
    expect(thread.replies.map((r: { message: string }) => r.message)).toEqual([
      'more 0',
      'more 1',
      'On it.',
      'Closing.',
    ]);

    // Text: 49 KB replies, as in the report, stop at 100 KB of text on another ticket.
    const big = await createTicket(s);
    const text49 = 'x'.repeat(49 * 1000);
    expect((await customer(big, text49)).status).toBe(201);
    expect((await customer(big, text49)).status).toBe(201);
    const tooMuch = await customer(big, text49);
    expect(tooMuch.status).toBe(413);
    expect(tooMuch.body.error.code).toBe('ticket_quota_exceeded');
    expect((await customer(big, 'short')).status).toBe(201); // what still fits is taken
    expect((await s.call('GET', '/admin?r=limits')).body.limits.quotas).toMatchObject({
      ticket_messages: 4,
      ticket_text_chars: 100 * 1024,
    });
  });

  it('refuse a file that would pass the bytes-per-ticket quota with 413', async () => {
    const s = await server({ TICKETING_QUOTA_TICKET_MB: '1' });
    const t = await createTicket(s);
    expect((await upload(s, t.id, 600 * KB)).status).toBe(201);
    const refused = await upload(s, t.id, 600 * KB);
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('ticket_quota_exceeded');
    expect((await upload(s, t.id, 400 * KB)).status).toBe(201); // what still fits is taken
    expect(await storedFiles(s)).toBe(2);
    expect((await createWithFiles(s, [600 * KB, 600 * KB])).body.error.code).toBe('ticket_quota_exceeded');
  });

  it('refuse an address that uploaded its hourly quota with 429 and Retry-After, until the hour has passed', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const s = await server({ TICKETING_QUOTA_UPLOAD_MB_PER_HOUR: '2' }, () => new Date(now));
    // Spread over several tickets, so the per-ticket quota is not what stops it.
    const tickets = [await createTicket(s), await createTicket(s), await createTicket(s)];
    expect((await upload(s, tickets[0]!.id, 900 * KB)).status).toBe(201);
    expect((await createWithFiles(s, [900 * KB])).status).toBe(201);
    const refused = await upload(s, tickets[1]!.id, 300 * KB);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('upload_quota_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect((await upload(s, tickets[1]!.id, 100 * KB)).status).toBe(201); // still fits: 1,900 KB of 2,048
    expect(await storedFiles(s)).toBe(3);
    // Support is not held to it.
    expect((await upload(s, tickets[2]!.id, 900 * KB, s.keys.sk)).status).toBe(201);
    // A full quota refuses the next upload before its body is parsed: even a file that its checks would
    // refuse (415) is answered 429.
    expect((await upload(s, tickets[1]!.id, 148 * KB)).status).toBe(201); // 2,048 KB: full
    const form = new FormData();
    form.append('ticket_id', tickets[1]!.id);
    form.append('email', 'ada@example.com');
    form.append('file', new Blob(['MZ']), 'setup.exe');
    expect((await s.call('POST', '/upload', { key: s.keys.pk, multipart: form })).body.error.code).toBe(
      'upload_quota_exceeded',
    );
    expect(await storedFiles(s)).toBe(5);
    now += 3600_000;
    expect((await upload(s, tickets[2]!.id, 900 * KB)).status).toBe(201);
  });

  it('refuse new tickets, replies and files with 503 while free disk space is under the floor', async () => {
    const first = await startServer();
    const t = await createTicket(first);
    await first.close({ keepData: true });
    const free = await statfs(first.dataDir);
    const floorMb = Math.ceil((free.bavail * free.bsize) / MB) + 100_000; // above what this machine has free
    const s = await startServer({
      dataDir: first.dataDir,
      keys: first.keys,
      env: { TICKETING_MIN_FREE_DISK_MB: String(floorMb) },
    });
    cleanup.push(async () => {
      await s.close();
      await removeStore(first.dataDir);
    });
    const refused = [
      await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() }),
      await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput() }),
      await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'hi' } }),
      await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'hi' } }),
      await upload(s, t.id, 10),
    ];
    if (s.databaseUrl) {
      // With PostgreSQL, tickets and attachments are stored in the database, not on this machine's
      // disk: its free space is no reason to refuse them.
      for (const res of refused) expect([200, 201]).toContain(res.status);
      return;
    }
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      expect(res.body.error.message).toMatch(/disk space/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Nothing new was stored; reads, small changes and deletions (which free space) still work.
    const ticket = (await s.call('GET', `/ticket?id=${t.id}`)).body;
    expect(ticket.replies).toHaveLength(0);
    expect(ticket.attachments).toHaveLength(0);
    expect((await s.call('GET', '/list')).body.total).toBe(1);
    expect((await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'closed' } })).status).toBe(200);
    expect((await s.call('DELETE', '/delete', { json: { ticket_id: t.id } })).status).toBe(200);
  });
});
