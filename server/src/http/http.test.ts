import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { startChild } from '../test-support/child-server.js';
import { streamPost } from '../test-support/raw-upload.js';
import { openSse } from '../test-support/sse.js';
import { createTicket, makeKeys, startServer, ticketInput, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  // These tests send a bad key to every endpoint, more than one address may fail in a minute.
  s = await startServer({ env: { TICKETING_KEY_FAILURES_PER_MINUTE: '1000' } });
});
afterAll(() => s.close());

const ENDPOINTS: [method: string, path: string, access: 'pk' | 'sk'][] = [
  ['POST', '/create', 'pk'],
  ['GET', '/list', 'sk'],
  ['GET', '/ticket', 'pk'],
  ['POST', '/reply', 'pk'],
  ['POST', '/status', 'sk'],
  ['POST', '/priority', 'sk'],
  ['POST', '/assign', 'sk'],
  ['DELETE', '/delete', 'sk'],
  ['GET', '/meta', 'pk'],
  ['POST', '/close-request', 'pk'],
  ['POST', '/close-resolve', 'sk'],
  ['POST', '/upload', 'pk'],
  ['GET', '/file', 'pk'],
  ['POST', '/rate', 'pk'],
  ['GET', '/me', 'pk'],
];

describe('keys, for every endpoint', () => {
  it.each(ENDPOINTS)('%s %s: no key, a bad key and the wrong kind of key', async (method, path, access) => {
    const none = await s.call(method, path, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('missing_api_key');
    const basic = await s.call(method, path, { key: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.body.error.code).toBe('missing_api_key');
    const unknown = await s.call(method, path, { key: `sk_live_${'x'.repeat(30)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_api_key');
    const malformed = await s.call(method, path, { key: 'hello' });
    expect(malformed.body.error.code).toBe('invalid_api_key');
    const pk = await s.call(method, path, { key: s.keys.pk });
    if (access === 'sk') {
      expect(pk.status).toBe(403);
      expect(pk.body.error.code).toBe('secret_key_required');
    } else {
      expect(pk.status).not.toBe(401);
      expect(pk.status).not.toBe(403);
    }
  });
});

describe('order of checks', () => {
  it('answers an unknown route with 404 before looking at the key', async () => {
    const res = await s.call('GET', '/nope', { key: null });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers a wrong method with 405 and Allow, before the key', async () => {
    const res = await s.call('PUT', '/create', { key: null });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toContain('POST');
    const patch = await s.call('PATCH', '/list', { key: null });
    expect(patch.status).toBe(405);
  });

  it('leaves what the exact-path dispatch does not take to the router, as before: HEAD, a trailing slash, other case', async () => {
    // Plain fetch: these spellings are not in the OpenAPI document that s.call checks answers against.
    const get = (path: string, method = 'GET', key: string | null = s.keys.sk) =>
      fetch(`${s.base}${path}`, { method, headers: key ? { Authorization: `Bearer ${key}` } : {} });
    const me = await get('/me');
    expect(me.status).toBe(200);
    const body = await me.json();
    const head = await get('/me', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const path of ['/me/', '/ME']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(body);
    }
    // Past the dispatch, the router still answers a staff path's OPTIONS and a wrong method.
    const options = await get('/list', 'OPTIONS', null);
    expect(options.headers.get('allow')).toContain('GET');
    expect((await get('/ticket', 'POST', null)).status).toBe(405);
  });

  it('checks the key before the body: a bad body with no key is a 401', async () => {
    const res = await s.call('POST', '/create', {
      key: null,
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(401);
  });

  it('checks the body before the lookup: an unknown ticket with a bad body is a 400', async () => {
    const res = await s.call('POST', '/rate', { json: { ticket_id: 'tkt_unknown', score: 9 } });
    expect(res.status).toBe(400);
  });
});

describe('bodies', () => {
  it('refuses a body that does not parse', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('refuses JSON that is not an object', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: '[1,2]',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('refuses an unknown media type', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: 'hello',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    const upload = await s.call('POST', '/upload', { key: s.keys.pk, json: { ticket_id: 'x' } });
    expect(upload.status).toBe(415);
  });

  it('refuses a JSON body over 1 MB with 413', async () => {
    const big = JSON.stringify(ticketInput({ message: 'x'.repeat(1024 * 1024) }));
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('lets a client still sending a body over 1 MB read the 413, every time', async () => {
    // Answering at once and then closing a connection with unread bytes on it made the kernel reset it:
    // about half of these clients saw EPIPE or ECONNRESET instead of the answer. The server runs in its
    // own process, as for a real client (sharing one event loop with the client hides the race).
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-413-'));
    const keys = makeKeys();
    const child = await startChild({
      TICKETING_DATA_DIR: dataDir,
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_RATE_LIMIT: 'off',
    });
    try {
      const outcomes: Record<string, number> = {};
      for (const size of [1.5 * 1024 * 1024, 5 * 1024 * 1024])
        for (const type of ['application/json', 'application/x-www-form-urlencoded'])
          for (const way of [{}, { close: true }, { chunked: true }])
            for (let i = 0; i < 8; i++) {
              const outcome = await streamPost(`${child.url}/v1/create`, {
                headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': type },
                size,
                ...way,
              }).then(
                (a) => `${a.status} ${JSON.parse(a.body).error.code}`,
                (err: NodeJS.ErrnoException) => `${JSON.stringify(way)} ${size}: ${err.code ?? err.message}`,
              );
              outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
            }
      expect(outcomes).toEqual({ '413 payload_too_large': 96 });
      const meta = await fetch(`${child.url}/v1/meta`, { headers: { Authorization: `Bearer ${keys.pk}` } });
      expect(meta.status).toBe(200);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('ignores __proto__ in bodies and pollutes nothing', async () => {
    const body =
      '{"name":"A","email":"a@example.com","subject":"s","message":"m","__proto__":{"polluted":true},"fields":{"__proto__":{"x":1}}}';
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const form = await s.call('POST', '/create', {
      key: s.keys.pk,
      form: { ...(ticketInput() as Record<string, string>), '__proto__[polluted]': 'yes', 'fields[__proto__]': 'x' },
    });
    expect(form.status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never shows a stack trace or a path in an error', async () => {
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      body: '\u0000\u0001',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.text).not.toMatch(/at .*\.(ts|js):\d+|\/work\/|node_modules/);
    expect(res.body.error).toEqual({ code: 'invalid_json', message: expect.any(String) });
  });
});

describe('headers', () => {
  it('gives every answer an X-Request-Id, and keeps a sane one from a proxy', async () => {
    const a = await s.call('GET', '/nope', { key: null });
    const b2 = await s.call('GET', '/nope', { key: null });
    expect(a.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
    expect(b2.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
    const b = await s.call('GET', '/me', { headers: { 'X-Request-Id': 'proxy-id-123456' } });
    expect(b.headers.get('x-request-id')).toBe('proxy-id-123456');
    const c = await s.call('GET', '/me', { headers: { 'X-Request-Id': 'bad id\twith tab' } });
    expect(c.headers.get('x-request-id')).not.toContain('bad');
  });

  it('answers JSON with charset', async () => {
    const res = await s.call('GET', '/meta', { key: s.keys.pk });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('CORS', () => {
  const origin = 'https://shop.example';

  it('answers a preflight on a pk endpoint', async () => {
    const res = await s.call('OPTIONS', '/create', {
      key: null,
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, If-None-Match, Idempotency-Key, X-Ticketing-Identity',
    );
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('puts Allow-Origin on actual answers, errors included, and exposes ETag', async () => {
    const ok = await s.call('GET', '/meta', { key: s.keys.pk, headers: { Origin: origin } });
    expect(ok.headers.get('access-control-allow-origin')).toBe(origin);
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    const err = await s.call('GET', '/ticket', { key: s.keys.pk, headers: { Origin: origin } });
    expect(err.status).toBe(400);
    expect(err.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('sends no CORS headers on secret-key endpoints', async () => {
    for (const path of ['/list', '/status', '/priority', '/assign', '/delete', '/close-resolve']) {
      const pre = await s.call('OPTIONS', path, {
        key: null,
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
      });
      expect(pre.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    const res = await s.call('GET', '/list', { headers: { Origin: origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a public key with origins from another origin', async () => {
    const { createKey } = await import('../keys/keys.js');
    const { key, stored } = createKey('public', 'live', { origins: ['https://allowed.example'] });
    await s.running.deps.keys.add(stored);
    const other = await s.call('GET', '/meta', { key, headers: { Origin: 'https://evil.example' } });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('origin_not_allowed');
    expect(other.body.error.message).toContain('https://evil.example');
    const german = await s.call('GET', '/meta', {
      key,
      headers: { Origin: 'https://other.example', 'Accept-Language': 'de' },
    });
    expect(german.body.error.message).toBe(
      'Dieser Schlüssel darf auf dieser Website (https://other.example) nicht verwendet werden.',
    );
    expect((await s.call('GET', '/meta', { key, headers: { Origin: 'https://allowed.example' } })).status).toBe(200);
    expect((await s.call('GET', '/meta', { key })).status).toBe(200); // server-side callers send no Origin
  });
});

describe('legacy .php paths', () => {
  it('redirects with 308 and keeps the query, before the key is checked', async () => {
    const res = await s.call('POST', '/create.php?ref=old', { key: null });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/v1/create?ref=old');
    const get = await s.call('GET', '/ticket.php?id=tkt_x&email=a%40b.c', {
      key: null,
      headers: { Host: 'evil.example' },
    });
    expect(get.headers.get('location')).toBe('/v1/ticket?id=tkt_x&email=a%40b.c');
    // Names with a slash too, and never a path outside the route table.
    const nested = await s.call('POST', '/admin/mail-test.php', { key: null });
    expect(nested.status).toBe(308);
    expect(nested.headers.get('location')).toBe('/v1/admin/mail-test');
    expect((await s.call('GET', '/admin/../ticket.php', { key: null })).headers.get('location')).toBe('/v1/ticket');
    expect((await s.call('GET', '/no/such/thing.php', { key: null })).status).toBe(404);
  });

  it('is followed by clients with method and body intact', async () => {
    const res = await fetch(`${s.base}/create.php`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.keys.pk}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(ticketInput({ subject: 'via php' })),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { subject: string }).subject).toBe('via php');
  });

  it('answers a preflight to a .php path as for the clean path', async () => {
    const res = await s.call('OPTIONS', '/create.php', {
      key: null,
      headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://a.example');
  });

  it('answers 404 for a .php name that is no endpoint', async () => {
    const res = await s.call('GET', '/wp-login.php', { key: null });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('logs', () => {
  it('writes one line per request with the key prefix only, never a key', async () => {
    const t = await createTicket(s);
    await s.call('GET', `/ticket?id=${t.id}&email=ada%40example.com`, {
      key: s.keys.pk,
      headers: { 'X-Request-Id': 'find-me-in-logs-1' },
    });
    const line = s.logs.find((l) => l.includes('find-me-in-logs-1'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line!);
    expect(entry).toMatchObject({ method: 'GET', path: '/v1/ticket', status: 200, key: s.keys.pk.slice(0, 12) });
    const all = s.logs.join('\n');
    for (const key of Object.values(s.keys)) expect(all).not.toContain(key);
    expect(all).not.toContain('ada%40example.com');
  });
});

describe('a client that goes away', () => {
  it('is no error in the log: an event stream closed by the client', async () => {
    const before = s.logs.length;
    const stream = await openSse(`${s.base}/events`, { Authorization: `Bearer ${s.keys.sk}` });
    expect(stream.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    stream.close();
    // The server notices the closed socket at once; a heartbeat would tell it at the latest.
    await new Promise((r) => setTimeout(r, 500));
    const errors = s.logs.slice(before).filter((l) => l.startsWith('{') && JSON.parse(l).level >= 50);
    expect(errors).toEqual([]);
  });
});

describe('a request Node itself refuses', () => {
  /** Sends raw bytes and reads the whole answer (the server closes the connection). */
  const raw = (bytes: string) =>
    new Promise<string>((ok, fail) => {
      const socket = connect(Number(new URL(s.base).port), '127.0.0.1', () => socket.end(bytes));
      let text = '';
      socket.on('data', (c) => (text += String(c)));
      socket.on('end', () => ok(text));
      socket.on('error', fail);
    });

  it('answers in the API error shape with a request id, and logs it as a warning', async () => {
    const control = await raw('GET /v1/meta HTTP/1.1\r\nHost: a\r\nX-Evil: a\u0001b\r\n\r\n');
    const [head, body] = control.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    const id = /X-Request-Id: (\S+)/i.exec(head!)?.[1];
    expect(id).toBeDefined();
    expect(head).toMatch(/Content-Type: application\/json/i);
    expect(JSON.parse(body!)).toMatchObject({ error: { code: 'bad_request' } });
    const line = s.logs.find((l) => l.includes(id!));
    expect(JSON.parse(line!)).toMatchObject({ level: 40, code: 'bad_request' });

    const huge = await raw(`GET /v1/meta HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.split('\r\n\r\n')[1]!)).toMatchObject({ error: { code: 'headers_too_large' } });
    // The server goes on answering.
    expect((await s.call('GET', '/meta')).status).toBe(200);
  });
});

describe('every JSON answer', () => {
  it('carries X-Content-Type-Options: nosniff, errors included', async () => {
    const t = await createTicket(s);
    const answers = [
      await s.call('GET', '/me'),
      await s.call('GET', `/ticket?id=${t.id}`),
      await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() }),
      await s.call('GET', '/openapi.json'),
      await s.call('GET', '/admin?r=all'),
      await s.call('GET', '/me', { key: null }), // 401
      await s.call('GET', '/ticket', { key: s.keys.pk }), // 400
      await s.call('GET', '/nope'), // 404 before the key
      await s.call('PUT', '/me'), // 405
      await s.call('POST', '/create', { key: s.keys.pk, body: '{', headers: { 'Content-Type': 'application/json' } }),
    ];
    for (const res of answers) {
      expect(res.headers.get('content-type'), `${res.status} ${res.text.slice(0, 80)}`).toMatch(/^application\/json/);
      expect(res.headers.get('x-content-type-options'), `${res.status} ${res.text.slice(0, 80)}`).toBe('nosniff');
    }
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set([200, 201, 400, 401, 404, 405]));
  });
});

describe('rate limits', () => {
  it('answers request N+1 with 429 and Retry-After, and stores nothing', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const r = await startServer({
      env: {
        TICKETING_RATE_LIMIT: 'on',
        TICKETING_RATE_LIMIT_PK_CREATES_PER_10_MINUTES: '3',
        TICKETING_RATE_LIMIT_SK_PER_MINUTE: '100',
      },
      clock: () => new Date(now),
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await r.call('POST', '/create', { key: r.keys.pk, json: ticketInput() })).status).toBe(201);
      const refused = await r.call('POST', '/create', { key: r.keys.pk, json: ticketInput({ subject: 'fourth' }) });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await r.call('GET', '/list')).body.total).toBe(3);
      // Reads with the same public key still go through; the window passes with time.
      expect((await r.call('GET', '/meta', { key: r.keys.pk })).status).toBe(200);
      now += 10 * 60 * 1000 + 1;
      expect((await r.call('POST', '/create', { key: r.keys.pk, json: ticketInput() })).status).toBe(201);
    } finally {
      await r.close();
    }
  });

  it('throttles failed key lookups per address before the lookup, even with rate limits off', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const r = await startServer({ env: { TICKETING_KEY_FAILURES_PER_MINUTE: '5' }, clock: () => new Date(now) });
    try {
      expect(r.running.deps.config.rateLimit.enabled).toBe(false);
      const guesses = [`sk_live_${'x'.repeat(30)}`, 'sk_live_short', `pk_live_${'y'.repeat(30)}`];
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await r.call('GET', '/me', { key: guesses[i % 3]! })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      // Request 6: refused before the key is looked at, so even the right key gets nothing now.
      for (const key of [guesses[0]!, r.keys.sk, r.keys.pk]) {
        const refused = await r.call('GET', '/me', { key });
        expect(refused.status).toBe(429);
        expect(refused.body.error.code).toBe('rate_limited');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // A missing key is no guess; the window passes with time.
      expect((await r.call('GET', '/me', { key: null })).body.error.code).toBe('missing_api_key');
      now += 60_000;
      expect((await r.call('GET', '/me', { key: r.keys.sk })).status).toBe(200);
      // Good requests never count: a client with a valid key is never throttled by this.
      for (let i = 0; i < 20; i++) expect((await r.call('GET', '/me', { key: r.keys.pk })).status).toBe(200);
    } finally {
      await r.close();
    }
  });

  it('limits all requests of a public key per minute', async () => {
    const r = await startServer({ env: { TICKETING_RATE_LIMIT: 'on', TICKETING_RATE_LIMIT_PK_PER_MINUTE: '5' } });
    try {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await r.call('GET', '/meta', { key: r.keys.pk })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await r.call('GET', '/meta', { key: r.keys.sk })).status).toBe(200);
    } finally {
      await r.close();
    }
  });
});
