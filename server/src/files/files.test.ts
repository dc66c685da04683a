import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild } from '../test-support/child-server.js';
import { streamUpload } from '../test-support/raw-upload.js';
import { createTicket, makeKeys, PNG_1PX, startServer, type TestServer } from '../test-support/server.js';
import { storedFileIds, storedTickets } from '../test-support/stored-tickets.js';
import { sanitizeFileName } from './file-name.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

function upload(
  ticketId: string,
  name: string,
  data: Buffer | string,
  extra: Record<string, string> = {},
  key = s.keys.pk,
) {
  const form = new FormData();
  form.append('ticket_id', ticketId);
  // The customer's email of createTicket: a public key proves the ticket with it.
  for (const [k, v] of Object.entries({ email: 'ada@example.com', ...extra })) form.append(k, v);
  form.append('file', new Blob([data]), name);
  return s.call('POST', '/upload', { key, multipart: form });
}

const MB5 = 5 * 1024 * 1024;

describe('POST /upload', () => {
  it('stores a file on the ticket and answers the Attachment', async () => {
    const t = await createTicket(s);
    const res = await upload(t.id, 'screen.png', PNG_1PX, { email: 'ada@example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^fil_/),
      ticket_id: t.id,
      reply_id: null,
      name: 'screen.png',
      size: PNG_1PX.length,
      type: 'image/png',
      created_at: expect.any(String),
    });
    const ticket = await s.call('GET', `/ticket?id=${t.id}`);
    expect(ticket.body.attachments).toEqual([res.body]);
  });

  it('attaches to a reply of the ticket, and refuses a reply of another', async () => {
    const t = await createTicket(s);
    const other = await createTicket(s);
    const r = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'see file' },
    });
    const replyId = r.body.replies[0].id;
    const ok = await upload(t.id, 'log.txt', 'line 1\n', { reply_id: replyId });
    expect(ok.body.reply_id).toBe(replyId);
    const ticket = await s.call('GET', `/ticket?id=${t.id}`);
    expect(ticket.body.replies[0].attachments[0].id).toBe(ok.body.id);
    const bad = await upload(other.id, 'log.txt', 'x', { reply_id: replyId });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('reply_id');
  });

  it('lets a public key attach only to the customer’s own messages, never to support’s (issue 28)', async () => {
    const t = await createTicket(s);
    const support = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Send the refund to us' } });
    const supportReplyId = support.body.replies[0].id;
    const forged = await upload(t.id, 'iban.txt', 'IBAN DE00 0000 0000\n', { reply_id: supportReplyId });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('secret_key_required');
    const staff = await s.call('GET', `/ticket?id=${t.id}`);
    expect(staff.body.replies[0].attachments).toEqual([]);
    // The customer's own reply takes files; support's key may still attach to support's reply.
    const own = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'here is the receipt' },
    });
    const ownId = own.body.replies.at(-1).id;
    expect((await upload(t.id, 'receipt.txt', 'paid\n', { reply_id: ownId })).status).toBe(201);
    expect((await upload(t.id, 'terms.txt', 'terms\n', { reply_id: supportReplyId }, s.keys.sk)).status).toBe(201);
    const after = await s.call('GET', `/ticket?id=${t.id}`);
    expect(
      after.body.replies.map((r: { attachments: { name: string }[] }) => r.attachments.map((a) => a.name)),
    ).toEqual([['terms.txt'], ['receipt.txt']]);
  });

  it('refuses a missing file, a wrong email and an unknown ticket', async () => {
    const t = await createTicket(s);
    const form = new FormData();
    form.append('ticket_id', t.id);
    form.append('email', t.email);
    const none = await s.call('POST', '/upload', { key: s.keys.pk, multipart: form });
    expect(none.status).toBe(400);
    expect(none.body.error.param).toBe('file');
    expect((await upload(t.id, 'a.txt', 'x', { email: 'eve@example.com' })).body.error.code).toBe('ticket_not_found');
    expect((await upload('tkt_unknownunknown0000', 'a.txt', 'x')).status).toBe(404);
  });

  it('decides the type by extension and content', async () => {
    const t = await createTicket(s);
    const cases: [string, Buffer | string, number][] = [
      ['photo.png', PNG_1PX, 201],
      ['photo.jpg', PNG_1PX, 415], // a PNG named .jpg
      ['doc.pdf', PNG_1PX, 415], // a PNG named .pdf
      ['doc.pdf', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF'), 201],
      ['image.png', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 415],
      ['page.html', '<html></html>', 415],
      ['noext', 'hello', 415],
      ['notes.txt', Buffer.from('a\u0000b'), 415], // NUL
      ['notes.txt', Buffer.from([0xff, 0xfe, 0x41]), 415], // not UTF-8
      ['notes.txt', 'Grüße\n', 201],
      ['data.json', '{"a":1}', 201],
      ['data.json', '{"a":', 415],
      ['table.csv', 'a,b\n1,2\n', 201],
      ['archive.zip', Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]), 201],
      ['archive.zip', 'PK not really', 415],
      ['script.exe', 'MZ', 415],
    ];
    for (const [name, data, status] of cases) {
      const res = await upload(t.id, name, data);
      expect(res.status, name).toBe(status);
      if (status === 415) expect(res.body.error).toMatchObject({ code: 'unsupported_file_type', param: 'file' });
    }
  });

  it('cleans file names', async () => {
    const t = await createTicket(s);
    const res = await upload(t.id, '../../etc/evil\u202Etxt.png', PNG_1PX);
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('eviltxt.png');
    expect(sanitizeFileName('..\\..\\a.txt')).toBe('a.txt');
    expect(sanitizeFileName('a\r\nSet-Cookie: x.txt')).toBe('aSet-Cookie: x.txt');
    const long = sanitizeFileName(`${'é'.repeat(300)}.txt`);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(255);
    expect(long.endsWith('.txt')).toBe(true);
  });

  it('accepts exactly 5,242,880 bytes and refuses one more with 413', async () => {
    const t = await createTicket(s);
    const exact = await streamUpload(
      `${s.base}/upload`,
      s.keys.pk,
      { ticket_id: t.id, email: t.email },
      { name: 'big.txt', size: MB5 },
    );
    expect(exact.status).toBe(201);
    expect(JSON.parse(exact.body).size).toBe(MB5);
    const over = await streamUpload(
      `${s.base}/upload`,
      s.keys.pk,
      { ticket_id: t.id, email: t.email },
      { name: 'big.txt', size: MB5 + 1 },
    );
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).error.code).toBe('file_too_large');
    const ticket = await s.call('GET', `/ticket?id=${t.id}`);
    expect(ticket.body.attachments).toHaveLength(1);
    expect(await storedFileIds(s, t.id)).toHaveLength(1);
  });

  it('refuses an over-size attachment on /create and stores nothing', async () => {
    const before = (await storedTickets(s)).size;
    const fields = { name: 'A', email: 'a@example.com', subject: 's', message: 'm' };
    const res = await streamUpload(`${s.base}/create`, s.keys.pk, fields, {
      name: 'big.txt',
      size: MB5 + 1,
      field: 'attachments[]',
    });
    expect(res.status).toBe(413);
    expect((await storedTickets(s)).size).toBe(before);
  });
});

describe('GET /file', () => {
  it('always forces a download with safe headers', async () => {
    const t = await createTicket(s);
    const up = await upload(t.id, 'räksmörgås "x".txt', '<html><script>alert(1)</script></html>');
    const res = await fetch(`${s.base}/file?ticket_id=${t.id}&file_id=${up.body.id}&email=ada%40example.com`, {
      headers: { Authorization: `Bearer ${s.keys.pk}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const cd = res.headers.get('content-disposition')!;
    expect(cd).toMatch(/^attachment; filename="[^"]*"; filename\*=UTF-8''r%C3%A4ksm%C3%B6rg%C3%A5s%20%22x%22\.txt$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(await res.text()).toBe('<html><script>alert(1)</script></html>');
  });

  it('gives ASCII names a filename* too', async () => {
    const t = await createTicket(s);
    const up = await upload(t.id, 'photo.png', PNG_1PX);
    const res = await s.call('GET', `/file?ticket_id=${t.id}&file_id=${up.body.id}`);
    // content-disposition 3 writes a plain token unquoted (RFC 6266 allows both).
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=photo.png; filename*=UTF-8''photo.png`);
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('needs the email with a public key and hides a mismatch', async () => {
    const t = await createTicket(s);
    const up = await upload(t.id, 'a.txt', 'x');
    const q = `/file?ticket_id=${t.id}&file_id=${up.body.id}`;
    expect((await s.call('GET', q, { key: s.keys.pk })).body.error.param).toBe('email');
    const wrong = await s.call('GET', `${q}&email=eve@example.com`, { key: s.keys.pk });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('ticket_not_found');
    const unknownFile = await s.call('GET', `/file?ticket_id=${t.id}&file_id=fil_nopenopenopenope00`);
    expect(unknownFile.body.error.code).toBe('file_not_found');
    const otherMode = await s.call('GET', q, { key: s.keys.skTest });
    expect(otherMode.status).toBe(404);
  });
});

describe('memory', () => {
  it('refuses a 50 MB upload without the server growing by more than about 20 MB', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-mem-'));
    const keys = makeKeys();
    const child = await startChild({
      TICKETING_DATA_DIR: dataDir,
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_RATE_LIMIT: 'off',
    });
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.proc.pid}/status`, 'utf8'))![1]) * 1024;
    try {
      const create = await fetch(`${child.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'A', email: 'a@example.com', subject: 's', message: 'm' }),
      });
      const ticket = (await create.json()) as { id: string };
      // Warm up the upload path once so lazy-loaded code does not count as growth.
      await streamUpload(
        `${child.url}/v1/upload`,
        keys.pk,
        { ticket_id: ticket.id, email: 'a@example.com' },
        { name: 'w.txt', size: 1024 },
      );
      const baseline = rss();
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
      const res = await streamUpload(
        `${child.url}/v1/upload`,
        keys.pk,
        { ticket_id: ticket.id, email: 'a@example.com' },
        { name: 'huge.txt', size: 50 * 1024 * 1024 },
      );
      clearInterval(sampler);
      peak = Math.max(peak, rss());
      expect(res.status).toBe(413);
      expect(res.sent).toBeLessThan(50 * 1024 * 1024); // the server stopped reading before the end
      expect(peak - baseline).toBeLessThan(20 * 1024 * 1024);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an over-size upload, from a client still sending it', () => {
  it('always reads the 413, with keep-alive, Connection: close or a chunked body', async () => {
    // The server stops reading and answers at once; the answer must still reach the client. Its own
    // process, as for a real client (sharing one event loop with the client hides the race).
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-413-'));
    const keys = makeKeys();
    const child = await startChild({
      TICKETING_DATA_DIR: dataDir,
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_RATE_LIMIT: 'off',
    });
    try {
      const create = await fetch(`${child.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'A', email: 'a@example.com', subject: 's', message: 'm' }),
      });
      const ticket = (await create.json()) as { id: string };
      const outcomes: Record<string, number> = {};
      for (const size of [6 * 1024 * 1024, 50 * 1024 * 1024])
        for (const way of [{}, { close: true }, { chunked: true }])
          for (let i = 0; i < 5; i++) {
            const outcome = await streamUpload(
              `${child.url}/v1/upload`,
              keys.pk,
              { ticket_id: ticket.id, email: 'a@example.com' },
              { name: 'big.txt', size },
              way,
            ).then(
              (a) => `${a.status} ${JSON.parse(a.body).error.code}`,
              (err: NodeJS.ErrnoException) => `${JSON.stringify(way)} ${size}: ${err.code ?? err.message}`,
            );
            outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
          }
      expect(outcomes).toEqual({ '413 file_too_large': 30 });
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
