import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG_1PX, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { storedFileIds, storedTickets } from '../test-support/stored-tickets.js';

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  await s.running.deps.configStore.update((d) => {
    d.categories = [
      {
        id: 'orders',
        name: 'Orders',
        fields: [
          { id: 'order_id', label: 'Order number', type: 'number', required: true },
          { id: 'channel', label: 'Channel', type: 'select', required: false, options: ['web', 'phone'] },
          { id: 'since', label: 'Since', type: 'date', required: false },
          { id: 'site', label: 'Site', type: 'url', required: false },
          { id: 'copy_to', label: 'Copy to', type: 'email', required: false },
          { id: 'urgent', label: 'Urgent', type: 'checkbox', required: false },
        ],
      },
      { id: 'general', name: 'General', fields: [] },
      {
        id: 'words',
        name: 'Words that are also property names',
        fields: [
          { id: 'constructor', label: 'Constructor', type: 'text', required: true },
          { id: 'prototype', label: 'Prototype', type: 'text', required: true },
        ],
      },
    ];
  });
});
afterAll(() => s.close());

/** The ids of the tickets stored on disk (files and journal). */
const storedIds = async (mode: 'live' | 'test' = 'live') => [...(await storedTickets(s, mode)).keys()].sort();

describe('POST /create', () => {
  it('creates a ticket from JSON with a public key and answers the public view', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ page_url: 'https://shop.example/cart' }),
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^tkt_[A-Za-z0-9]{16,}$/);
    expect(res.body).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      status: 'open',
      priority: 'normal',
      category: null,
      page_url: 'https://shop.example/cart',
      close_request: null,
      rating: null,
      replies: [],
      attachments: [],
      closed_at: null,
    });
    expect(res.body).not.toHaveProperty('agent_id');
    expect(res.body).not.toHaveProperty('tags');
    expect(res.body).not.toHaveProperty('due_at');
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('answers the full view to a secret key', async () => {
    const res = await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ agent_id: null, tags: [], due_at: null });
  });

  it('checks custom fields against the category and names each bad one', async () => {
    const bad = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({
        category: 'orders',
        fields: { channel: 'fax', since: '2026-02-30', site: 'javascript:alert(1)', copy_to: 'nope' },
      }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const params = bad.body.error.details.map((d: { param: string }) => d.param).sort();
    expect(params).toEqual(['fields.channel', 'fields.copy_to', 'fields.order_id', 'fields.since', 'fields.site']);
    expect(bad.body.error.param).toBe('fields.order_id');

    const good = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({
        category: 'orders',
        fields: { order_id: '42', channel: 'web', since: '2026-02-28', urgent: 'yes', unknown: 'dropped' },
      }),
    });
    expect(good.status).toBe(201);
    expect(good.body.category).toBe('orders');
    expect(good.body.fields).toEqual({ order_id: 42, channel: 'web', since: '2026-02-28', urgent: true });
  });

  it('refuses a category that is not configured', async () => {
    const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ category: 'nope' }) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'category' });
  });

  it('lists every missing or malformed field in details', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: { name: 'A\r\nBcc: x@evil.example', email: 'not-an-email', subject: '', message: '   ' },
    });
    expect(res.status).toBe(400);
    const params = res.body.error.details.map((d: { param: string }) => d.param);
    expect(params).toEqual(expect.arrayContaining(['name', 'email', 'subject', 'message']));
  });

  it('refuses an address whose domain label starts or ends with a hyphen, as format: email says', async () => {
    for (const email of ['a@mail-.example', 'a@-mail.example', 'a@mail.-example.com']) {
      const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ email }) });
      expect(res.status, email).toBe(400);
      expect(res.body.error.param).toBe('email');
    }
    const fine = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ email: 'a.b+c@mail-1.example' }),
    });
    expect(fine.status).toBe(201);
  });

  it('enforces the length limits', async () => {
    const long = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ subject: 'x'.repeat(301) }) });
    expect(long.body.error.param).toBe('subject');
    const ok = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ subject: 'x'.repeat(300), message: 'm'.repeat(50_000) }),
    });
    expect(ok.status).toBe(201);
    const tooLong = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ message: 'm'.repeat(50_001) }),
    });
    expect(tooLong.body.error.param).toBe('message');
  });

  it('takes a urlencoded form with bracket fields', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      form: { ...ticketInput(), category: 'orders', 'fields[order_id]': '7' } as Record<string, string>,
    });
    expect(res.status).toBe(201);
    expect(res.body.fields).toEqual({ order_id: 7 });
  });

  it('takes multipart with attachments[] and stores the files', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput())) form.append(k, v as string);
    form.append('fields', JSON.stringify({ order_id: 9 }));
    form.append('category', 'orders');
    form.append('attachments[]', new Blob([PNG_1PX]), 'photo.png');
    form.append('attachments[]', new Blob(['order 42\n']), 'notes.txt');
    const res = await s.call('POST', '/create', { key: s.keys.pk, multipart: form });
    expect(res.status).toBe(201);
    expect(res.body.fields).toEqual({ order_id: 9 });
    expect(res.body.attachments).toHaveLength(2);
    expect(res.body.attachments[0]).toMatchObject({
      name: 'photo.png',
      size: PNG_1PX.length,
      type: 'image/png',
      reply_id: null,
    });
    expect(res.body.attachments[1]).toMatchObject({ name: 'notes.txt', type: 'text/plain; charset=utf-8' });
    const stored = await storedFileIds(s, res.body.id);
    expect(stored.sort()).toEqual(res.body.attachments.map((a: { id: string }) => a.id).sort());
  });

  it('stores nothing at all when one attachment is refused', async () => {
    const before = await storedIds();
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput())) form.append(k, v as string);
    form.append('attachments[]', new Blob([PNG_1PX]), 'photo.png');
    form.append('attachments[]', new Blob(['<html><script>alert(1)</script>']), 'page.html');
    const res = await s.call('POST', '/create', { key: s.keys.pk, multipart: form });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_file_type', param: 'attachments[1]' });
    expect(await storedIds()).toEqual(before);
  });

  it('refuses more than 10 attachments', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput())) form.append(k, v as string);
    for (let i = 0; i < 11; i++) form.append('attachments[]', new Blob(['x']), `f${i}.txt`);
    const res = await s.call('POST', '/create', { key: s.keys.pk, multipart: form });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('keeps custom fields named constructor and prototype through JSON, form and multipart', async () => {
    const want = { constructor: 'Ada & Co', prototype: 'v2 prototype' };
    const json = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ category: 'words', fields: want }),
    });
    const form = await s.call('POST', '/create', {
      key: s.keys.pk,
      form: {
        ...(ticketInput() as Record<string, string>),
        category: 'words',
        'fields[constructor]': want.constructor,
        'fields[prototype]': want.prototype,
      },
    });
    const multipart = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ category: 'words' }))) multipart.append(k, v as string);
    multipart.append('fields[constructor]', want.constructor);
    multipart.append('fields[prototype]', want.prototype);
    const parts = await s.call('POST', '/create', { key: s.keys.pk, multipart });
    const asJsonText = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ category: 'words' }))) asJsonText.append(k, v as string);
    asJsonText.append('fields', JSON.stringify(want));
    const jsonText = await s.call('POST', '/create', { key: s.keys.pk, multipart: asJsonText });
    for (const res of [json, form, parts, jsonText]) {
      expect(res.status, res.text).toBe(201);
      expect(res.body.fields).toEqual(want);
      const stored = await s.call('GET', `/ticket?id=${res.body.id}`);
      expect(stored.body.fields).toEqual(want);
    }
  });

  it('drops __proto__ alone, wherever it appears, and pollutes nothing', async () => {
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const json = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: JSON.stringify(ticketInput({ category: 'words' })).replace(
        /}$/,
        ',"__proto__":{"polluted":true},"fields":{"__proto__":{"polluted":true},"constructor":"c","prototype":"p"}}',
      ),
      headers: { 'Content-Type': 'application/json' },
    });
    const form = await s.call('POST', '/create', {
      key: s.keys.pk,
      form: {
        ...(ticketInput() as Record<string, string>),
        category: 'words',
        '__proto__[polluted]': 'yes',
        'fields[__proto__]': 'x',
        'fields[constructor]': 'c',
        'fields[prototype]': 'p',
      },
    });
    const multipart = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ category: 'words' }))) multipart.append(k, v as string);
    multipart.append('__proto__[polluted]', 'yes');
    multipart.append('fields[__proto__]', 'x');
    multipart.append('fields[constructor]', 'c');
    multipart.append('fields[prototype]', 'p');
    const parts = await s.call('POST', '/create', { key: s.keys.pk, multipart });
    for (const res of [json, form, parts]) {
      expect(res.status, res.text).toBe(201);
      expect(res.body.fields).toEqual({ constructor: 'c', prototype: 'p' });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
  });

  it('keeps live and test tickets apart', async () => {
    const t = await s.call('POST', '/create', { key: s.keys.pkTest, json: ticketInput({ subject: 'from staging' }) });
    expect(t.status).toBe(201);
    expect((await s.call('GET', `/ticket?id=${t.body.id}`, { key: s.keys.sk })).status).toBe(404);
    expect((await s.call('GET', `/ticket?id=${t.body.id}`, { key: s.keys.skTest })).status).toBe(200);
    const live = await s.call('GET', '/list?q=from%20staging', { key: s.keys.sk });
    expect(live.body.total).toBe(0);
    const test = await s.call('GET', '/list?q=from%20staging', { key: s.keys.skTest });
    expect(test.body.total).toBe(1);
    expect(await storedIds('test')).toContain(t.body.id);
  });
});

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer and creates nothing new', async () => {
    const headers = { 'Idempotency-Key': 'retry-1' };
    const body = ticketInput({ subject: 'idempotent' });
    const [a, b] = await Promise.all([
      s.call('POST', '/create', { key: s.keys.pk, json: body, headers }),
      s.call('POST', '/create', { key: s.keys.pk, json: body, headers }),
    ]);
    const c = await s.call('POST', '/create', { key: s.keys.pk, json: body, headers });
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(b.body.id).toBe(a.body.id);
    expect(c.body).toEqual(a.body);
    const list = await s.call('GET', '/list?q=idempotent');
    expect(list.body.total).toBe(1);
  });

  it('refuses the same key with another body', async () => {
    const headers = { 'Idempotency-Key': 'retry-2' };
    await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(), headers });
    const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ subject: 'other' }), headers });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
  });

  it('scopes keys to the key holder', async () => {
    const headers = { 'Idempotency-Key': 'shared' };
    const a = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(), headers });
    const b = await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput(), headers });
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('works for /reply too', async () => {
    const t = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    const headers = { 'Idempotency-Key': 'reply-1' };
    const body = { ticket_id: t.body.id, email: t.body.email, message: 'once' };
    await s.call('POST', '/reply', { key: s.keys.pk, json: body, headers });
    const again = await s.call('POST', '/reply', { key: s.keys.pk, json: body, headers });
    expect(again.status).toBe(201);
    expect(again.body.replies).toHaveLength(1);
  });

  it('is kept across a restart, with the ticket it made, for a day', async () => {
    let now = new Date('2026-11-23T10:00:00Z');
    const first = await startServer({ clock: () => now });
    const headers = { 'Idempotency-Key': 'before-restart' };
    const body = ticketInput({ subject: 'survives a restart' });
    const created = await first.call('POST', '/create', { key: first.keys.pk, json: body, headers });
    const reply = { ticket_id: created.body.id, message: 'sent once', email: body.email };
    const replyHeaders = { 'Idempotency-Key': 'reply-before-restart' };
    await first.call('POST', '/reply', { key: first.keys.pk, json: reply, headers: replyHeaders });
    await first.close({ keepData: true });

    const second = await startServer({ dataDir: first.dataDir, keys: first.keys, clock: () => now });
    try {
      const again = await second.call('POST', '/create', { key: second.keys.pk, json: body, headers });
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(created.body.id);
      const replied = await second.call('POST', '/reply', { key: second.keys.pk, json: reply, headers: replyHeaders });
      expect(replied.status).toBe(201);
      expect(replied.body.replies).toHaveLength(1);
      const other = { ...body, subject: 'another ticket' };
      const reused = await second.call('POST', '/create', { key: second.keys.pk, json: other, headers });
      expect(reused.status).toBe(409);
      expect((await second.call('GET', '/list')).body.total).toBe(1);
      // The key is written into the ticket file, never shown in any view.
      expect(JSON.stringify(again.body)).not.toContain('before-restart');
      expect(JSON.stringify((await second.call('GET', `/ticket?id=${created.body.id}`)).body)).not.toContain(
        'before-restart',
      );

      now = new Date('2026-11-24T10:00:01Z'); // past the day: the same key makes a new ticket
      const later = await second.call('POST', '/create', { key: second.keys.pk, json: body, headers });
      expect(later.status).toBe(201);
      expect(later.body.id).not.toBe(created.body.id);
    } finally {
      await second.close();
    }
  });

  it('refuses a malformed key', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput(),
      headers: { 'Idempotency-Key': 'x'.repeat(256) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('Idempotency-Key');
  });
});
