import { existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ioError, setFaultInjector } from '../store/faults.js';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { startSmtp } from '../test-support/smtp.js';
import { storedTickets } from '../test-support/stored-tickets.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());
afterEach(() => setFaultInjector(undefined));

const ticketsDir = () => join(s.dataDir, 'live', 'tickets');
const noTemps = () => readdirSync(ticketsDir()).filter((f) => f.endsWith('.tmp'));

/** Fails the n-th file operation from now on (1-based), once. */
function failNth(n: number) {
  let count = 0;
  let fired = false;
  setFaultInjector((op) => {
    count++;
    if (count === n && !fired) {
      fired = true;
      throw ioError('EIO', op);
    }
  });
  return () => fired;
}

function createWithFile(subject: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticketInput({ subject }))) form.append(k, v as string);
  form.append('attachments[]', new Blob(['receipt']), 'receipt.txt');
  return s.call('POST', '/create', { key: s.keys.pk, multipart: form });
}

describe('disk faults', () => {
  it('a create with a file either completes whole or leaves no trace, whichever file operation fails', async () => {
    let n = 1;
    for (; n < 40; n++) {
      const before = (await storedTickets(s.dataDir)).size;
      const fired = failNth(n);
      const res = await createWithFile(`fault ${n}`);
      setFaultInjector(undefined);
      if (!fired()) {
        expect(res.status).toBe(201); // past the last operation: nothing failed
        break;
      }
      expect(res.status, `operation ${n}`).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      expect(res.headers.get('retry-after')).toBe('30');
      expect((await storedTickets(s.dataDir)).size, `operation ${n}`).toBe(before);
      expect((await s.call('GET', `/list?q=${encodeURIComponent(`fault ${n}`)}`)).body.total).toBe(0);
      expect(noTemps()).toEqual([]);
    }
    expect(n).toBeGreaterThan(5); // the write path really has that many steps, each tried
    // No attachment bytes without a ticket that names them (the ticket may still be only in the
    // journal, whose checkpoint writes its file later; a stopped server has written it).
    const filesDir = join(s.dataDir, 'live', 'files');
    for (const dir of readdirSync(filesDir)) expect((await s.call('GET', `/ticket?id=${dir}`)).status, dir).toBe(200);
    await s.close({ keepData: true });
    for (const dir of readdirSync(filesDir)) expect(existsSync(join(ticketsDir(), `${dir}.json`)), dir).toBe(true);
    s = await startServer({ dataDir: s.dataDir, keys: s.keys });
  });

  it('a reply either completes whole or leaves no trace', async () => {
    const t = await createTicket(s);
    let n = 1;
    for (; n < 20; n++) {
      const fired = failNth(n);
      const res = await s.call('POST', '/reply', {
        key: s.keys.pk,
        json: { ticket_id: t.id, email: t.email, message: `reply ${n}` },
      });
      setFaultInjector(undefined);
      const now = (await s.call('GET', `/ticket?id=${t.id}`)).body;
      if (!fired()) {
        expect(res.status).toBe(201);
        expect(now.replies.map((r: { message: string }) => r.message)).toEqual([`reply ${n}`]);
        break;
      }
      expect(res.status, `operation ${n}`).toBe(503);
      expect(now.replies).toEqual([]);
      expect(noTemps()).toEqual([]);
    }
    expect(n).toBeGreaterThan(2); // a reply is one journal append: its write and its fdatasync, each tried
    // And on disk, as a restart would read it.
    await s.close({ keepData: true });
    s = await startServer({ dataDir: s.dataDir, keys: s.keys });
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.replies).toHaveLength(1);
  });

  it('answers writes with 503 and Retry-After on a read-only disk, keeps serving reads, and recovers', async () => {
    const kept = await createTicket(s, { subject: 'before the disk went read-only' });
    setFaultInjector((op) => {
      throw ioError('EROFS', op);
    });
    const write = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    expect(write.status).toBe(503);
    expect(write.body.error).toEqual({ code: 'unavailable', message: expect.any(String) });
    expect(Number(write.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await s.call('POST', '/reply', { json: { ticket_id: kept.id, message: 'x' } })).status).toBe(503);
    expect((await s.call('POST', '/admin?r=design', { json: { title: 'x' } })).status).toBe(503);
    expect((await s.call('GET', `/ticket?id=${kept.id}`)).status).toBe(200);
    expect((await s.call('GET', '/list')).status).toBe(200);
    setFaultInjector(undefined);
    expect(
      (await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ subject: 'after recovery' }) })).status,
    ).toBe(201);
    expect((await s.call('GET', `/ticket?id=${kept.id}`)).body.subject).toBe('before the disk went read-only');
  });

  it('answers 201 for a stored ticket even when its mail cannot be queued on disk, and still sends the mail', async () => {
    const smtp = await startSmtp();
    try {
      const admin = await s.call('POST', '/admin?r=mail', {
        json: { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', port: smtp.port } },
      });
      expect(admin.status).toBe(200);
      // Every write into the outbox fails; the ticket's own writes succeed.
      setFaultInjector((op, path) => {
        if (path.includes(`${sep}outbox${sep}`)) throw ioError('EIO', op);
      });
      const res = await s.call('POST', '/create', {
        key: s.keys.pk,
        json: ticketInput({ subject: 'mail not queued' }),
      });
      expect(res.status).toBe(201); // a 503 here would make the widget retry and file the ticket twice
      expect((await s.call('GET', `/ticket?id=${res.body.id}`)).status).toBe(200);
      const [mail] = await smtp.waitFor(1);
      expect(mail!.subject).toContain('mail not queued');
      expect(s.logs.some((l) => l.includes('could not store the job'))).toBe(true);
    } finally {
      setFaultInjector(undefined);
      await s.call('POST', '/admin?r=mail', { json: {} });
      await smtp.close();
    }
  });
});
