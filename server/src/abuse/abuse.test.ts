import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../test-support/receiver.js';
import { turnstileVerifier } from './turnstile.js';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(env: Record<string, string> = {}, fetch?: typeof globalThis.fetch): Promise<TestServer> {
  const s = await startServer({ env, ...(fetch ? { fetch } : {}) });
  cleanup.push(() => s.close());
  return s;
}

describe('blocklists', () => {
  it('refuse customers by email, domain, address range and keyword, and let support through', async () => {
    const s = await server();
    await s.call('POST', '/admin?r=blocklists', {
      json: { emails: ['spammer@example.com'], domains: ['spam.example'], ips: ['10.0.0.0/8'], keywords: ['Casino'] },
    });
    const cases: [Record<string, unknown>, number][] = [
      [{ email: 'SPAMMER@example.com' }, 403],
      [{ email: 'bot@spam.example' }, 403],
      [{ email: 'bot@mail.spam.example' }, 403],
      [{ email: 'ok@notspam.example' }, 201],
      [{ message: 'Best casino bonus' }, 403],
      [{ subject: 'Teapot' }, 201],
    ];
    for (const [over, status] of cases) {
      const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(over) });
      expect(res.status, JSON.stringify(over)).toBe(status);
      if (status === 403) expect(res.body.error.code).toBe('blocked');
    }
    expect(
      (await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput({ email: 'spammer@example.com' }) })).status,
    ).toBe(201);
    const t = await createTicket(s);
    const reply = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'casino!' },
    });
    expect(reply.body.error.code).toBe('blocked');
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.replies).toHaveLength(0);
  });

  it('match the client address, IPv6 and CIDR included', async () => {
    const s = await server();
    await s.call('POST', '/admin?r=blocklists', { json: { ips: ['127.0.0.0/8'] } });
    const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    expect(res.body.error.code).toBe('blocked');
    await s.call('POST', '/admin?r=blocklists', { json: { ips: ['127.0.0.2', '::1'] } });
    expect((await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() })).status).toBe(201);
  });

  it('uses X-Forwarded-For only behind a trusted proxy', async () => {
    const s = await server({ TICKETING_TRUST_PROXY: 'on' });
    await s.call('POST', '/admin?r=blocklists', { json: { ips: ['203.0.113.0/24'] } });
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput(),
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(res.body.error.code).toBe('blocked');
    const direct = await server();
    await direct.call('POST', '/admin?r=blocklists', { json: { ips: ['203.0.113.0/24'] } });
    const spoofed = await direct.call('POST', '/create', {
      key: direct.keys.pk,
      json: ticketInput(),
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(spoofed.status).toBe(201);
  });
});

describe('behind a proxy (TICKETING_TRUST_PROXY=on)', () => {
  // The proxy appends the address it saw to whatever X-Forwarded-For the client sent; these requests
  // play both: a client's own entries on the left, the proxy's entry (the real client) on the right.
  const via = (spoofed: string, real: string) => ({ 'X-Forwarded-For': `${spoofed}, ${real}` });

  it('blocklists see the right-most address; a spoofed left-most entry changes nothing', async () => {
    const s = await server({ TICKETING_TRUST_PROXY: 'on' });
    await s.call('POST', '/admin?r=blocklists', { json: { ips: ['203.0.113.0/24'] } });
    const create = (headers: Record<string, string>) =>
      s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(), headers });
    // A blocked client cannot step around the blocklist by naming another address first.
    expect((await create(via('198.51.100.1', '203.0.113.9'))).body.error?.code).toBe('blocked');
    // And a client cannot get someone else blocked by naming a blocked address.
    expect((await create(via('203.0.113.9', '198.51.100.1'))).status).toBe(201);
  });

  it('rate limits count the real client, however many addresses it makes up', async () => {
    const s = await server({
      TICKETING_TRUST_PROXY: 'on',
      TICKETING_RATE_LIMIT: 'on',
      TICKETING_RATE_LIMIT_PK_PER_MINUTE: '5',
    });
    const meta = (headers: Record<string, string>) => s.call('GET', '/meta', { key: s.keys.pk, headers });
    const statuses = [];
    for (let i = 0; i < 200; i++) statuses.push((await meta(via(`10.${i >> 8}.${i & 255}.7`, '203.0.113.7'))).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    // Another real client has its own window.
    expect((await meta(via('10.0.0.1', '203.0.113.8'))).status).toBe(200);
    // 201 made-up addresses, two real clients: two windows, not 201.
    expect(await s.running.deps.rateLimiter.windows()).toBe(2);
  });

  it('Turnstile is told the real client address', async () => {
    const standIn = await startReceiver(() => ({ status: 200, body: { success: true } }));
    cleanup.push(() => standIn.close());
    const s = await server({
      TICKETING_TRUST_PROXY: 'on',
      TICKETING_TURNSTILE_VERIFY_URL: `${standIn.url}/siteverify`,
    });
    await s.call('POST', '/admin?r=turnstile', { json: { enabled: true, site_key: '0x4AAA', secret: 'ts-secret' } });
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ 'cf-turnstile-response': 'tok' }),
      headers: via('192.0.2.1', '203.0.113.7'),
    });
    expect(res.status).toBe(201);
    expect(new URLSearchParams(standIn.received[0]!.body).get('remoteip')).toBe('203.0.113.7');
  });

  it('with two proxies (TICKETING_TRUST_PROXY_HOPS=2) the client is the second entry from the right', async () => {
    const s = await server({ TICKETING_TRUST_PROXY: 'on', TICKETING_TRUST_PROXY_HOPS: '2' });
    await s.call('POST', '/admin?r=blocklists', { json: { ips: ['203.0.113.9'] } });
    const create = (xff: string) =>
      s.call('POST', '/create', { key: s.keys.pk, json: ticketInput(), headers: { 'X-Forwarded-For': xff } });
    // client spoof, real client (seen by the CDN), CDN (seen by the inner proxy)
    expect((await create('198.51.100.1, 203.0.113.9, 10.1.2.3')).body.error?.code).toBe('blocked');
    expect((await create('203.0.113.9, 198.51.100.1, 10.1.2.3')).status).toBe(201);
  });
});

describe('Turnstile', () => {
  async function withStandIn(respond: Parameters<typeof startReceiver>[0]) {
    const standIn = await startReceiver(respond);
    cleanup.push(() => standIn.close());
    const s = await server({ TICKETING_TURNSTILE_VERIFY_URL: `${standIn.url}/siteverify` });
    await s.call('POST', '/admin?r=turnstile', {
      json: { enabled: true, site_key: '0x4AAA', secret: 'turnstile-secret' },
    });
    return { s, standIn };
  }

  it('verifies the token server-side and refuses a bad or missing one', async () => {
    const { s, standIn } = await withStandIn((req) => ({
      status: 200,
      body: { success: new URLSearchParams(req.body).get('response') === 'good-token' },
    }));
    const ok = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ 'cf-turnstile-response': 'good-token' }),
    });
    expect(ok.status).toBe(201);
    const sent = new URLSearchParams(standIn.received[0]!.body);
    expect(sent.get('secret')).toBe('turnstile-secret');
    expect(sent.get('remoteip')).toBe('127.0.0.1');
    const bad = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ 'cf-turnstile-response': 'forged' }),
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('captcha_failed');
    const missing = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    expect(missing.body.error.code).toBe('captcha_failed');
    expect(standIn.received).toHaveLength(2); // a missing token is refused without asking
    expect((await s.call('POST', '/create', { key: s.keys.sk, json: ticketInput() })).status).toBe(201); // support is not asked
    expect((await s.call('GET', '/list')).body.total).toBe(2);
  });

  it('fails closed with a clear message when verification times out', async () => {
    // A stand-in for fetch that fails as fetch does when its timeout signal fires.
    const calls: RequestInit[] = [];
    const timedOut: typeof fetch = (_url, init) => {
      calls.push(init ?? {});
      return Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    };
    const s = await server({}, timedOut);
    await s.call('POST', '/admin?r=turnstile', {
      json: { enabled: true, site_key: '0x4AAA', secret: 'turnstile-secret' },
    });
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ 'cf-turnstile-response': 'tok' }),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'captcha_failed',
      message: expect.stringMatching(/could not be verified/),
    });
    expect(calls[0]!.signal).toBeInstanceOf(AbortSignal); // every verification carries a timeout
    expect((await s.call('GET', '/list')).body.total).toBe(0);
  });

  it('gives up on a verification that outlasts its timeout', async () => {
    // fetch that answers only when aborted: the verifier's own timeout (20 ms here) must end it.
    const hanging: typeof fetch = (_url, init) =>
      new Promise((_ok, fail) => init?.signal?.addEventListener('abort', () => fail(init.signal!.reason)));
    const verify = turnstileVerifier({ verifyUrl: 'https://siteverify.invalid/', fetch: hanging, timeoutMs: 20 });
    await expect(verify('secret', 'tok', '127.0.0.1')).rejects.toMatchObject({
      status: 403,
      code: 'captcha_failed',
      message: expect.stringMatching(/could not be verified/),
    });
  });
});

describe('modules switched off', () => {
  it('answer 403 module_disabled to customers and show as off in /widget-config', async () => {
    const s = await server();
    const t = await createTicket(s);
    await s.call('POST', '/admin?r=modules', { json: { modules: [{ name: 'webhooks', enabled: false }] } });
    const config = await s.call('GET', '/widget-config', { key: s.keys.pk });
    expect(config.body.modules).toEqual({ kb: false, uploads: false, rating: false, close_request: false });
    const form = new FormData();
    form.append('ticket_id', t.id);
    form.append('email', t.email);
    form.append('file', new Blob(['x']), 'a.txt');
    const calls = [
      await s.call('GET', '/kb', { key: s.keys.pk }),
      await s.call('POST', '/upload', { key: s.keys.pk, multipart: form }),
      await s.call('POST', '/rate', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, score: 4 } }),
      await s.call('POST', '/close-request', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email } }),
    ];
    for (const res of calls) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('module_disabled');
    }
    const withFile = new FormData();
    for (const [k, v] of Object.entries(ticketInput())) withFile.append(k, v as string);
    withFile.append('attachments[]', new Blob(['x']), 'a.txt');
    expect((await s.call('POST', '/create', { key: s.keys.pk, multipart: withFile })).body.error.code).toBe(
      'module_disabled',
    );
    expect((await s.call('POST', '/rate', { json: { ticket_id: t.id, email: t.email, score: 4 } })).status).toBe(200); // support still can
  });

  it('form settings act: require_category and allow_attachments', async () => {
    const s = await server();
    await s.call('POST', '/admin?r=categories', { json: { categories: [{ id: 'orders', name: 'Orders' }] } });
    await s.call('POST', '/admin?r=form', { json: { require_category: true, allow_attachments: false } });
    expect((await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() })).body.error.param).toBe(
      'category',
    );
    expect(
      (await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ category: 'orders' }) })).status,
    ).toBe(201);
    const withFile = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ category: 'orders' }))) withFile.append(k, v as string);
    withFile.append('attachments[]', new Blob(['x']), 'a.txt');
    expect((await s.call('POST', '/create', { key: s.keys.pk, multipart: withFile })).body.error.code).toBe(
      'module_disabled',
    );
  });
});
