import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// Every status and code API.md documents; anything else in an answer is a bug.
const DOCUMENTED: Record<number, string[]> = {
  400: ['validation_failed', 'invalid_json', 'unknown_agent'],
  401: ['missing_api_key', 'invalid_api_key'],
  403: [
    'secret_key_required',
    'live_secret_key_required',
    'origin_not_allowed',
    'blocked',
    'module_disabled',
    'captcha_failed',
  ],
  404: [
    'not_found',
    'ticket_not_found',
    'file_not_found',
    'article_not_found',
    'agent_not_found',
    'resource_not_found',
  ],
  405: ['method_not_allowed'],
  409: ['no_close_request', 'ticket_closed', 'status_in_use', 'idempotency_key_reused'],
  413: ['file_too_large', 'payload_too_large', 'ticket_quota_exceeded'],
  415: ['unsupported_file_type', 'unsupported_media_type'],
  429: ['rate_limited', 'upload_quota_exceeded'],
};
const PATHS = [
  'create',
  'list',
  'ticket',
  'reply',
  'status',
  'priority',
  'assign',
  'delete',
  'meta',
  'kb',
  'close-request',
  'close-resolve',
  'upload',
  'file',
  'rate',
  'settings',
  'me',
  'widget-config',
  'admin',
  'openapi.json',
  'create.php',
  'nope',
  'admin.php',
];
const FIELDS = [
  'name',
  'email',
  'subject',
  'message',
  'category',
  'fields',
  'page_url',
  'ticket_id',
  'status',
  'priority',
  'agent_id',
  'accept',
  'score',
  'comment',
  'by',
  'from_customer',
  'author',
  'macro',
  'reply_id',
  'id',
  'r',
  'limit',
  'offset',
  'q',
  'tag',
  '__proto__',
  'constructor',
  'categories',
  'statuses',
  'smtp',
  'title',
  'body',
  'published',
  'password',
];
const RESOURCES = [
  'all',
  'design',
  'categories',
  'statuses',
  'agents',
  'kb',
  'audit',
  'priorities',
  'mail',
  'rules',
  'modules',
  'x',
];

let s: TestServer;
let ticketId = '';
beforeAll(async () => {
  // Every kind of key, bad ones included: the failed-key throttle would turn most answers into 429.
  s = await startServer({ env: { TICKETING_KEY_FAILURES_PER_MINUTE: '1000000' } });
  ticketId = (await createTicket(s)).id;
});
afterAll(() => s.close());

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    'a\r\nb',
    '\u0000',
    '<script>alert(1)</script>',
    '../../etc/passwd',
    'ada@example.com',
    'x'.repeat(70_000),
    'true',
    '4.5',
    '-1',
    '1e309',
    'open',
    'closed',
    'urgent',
    'agt_x',
    'tkt_x',
  ),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('v'), { maxKeys: 4 }),
  ),
})).v;

// Hand-built multipart bodies: what no FormData produces, and what a fuzzer sends (parts without a
// name or with an empty one, files in any field, broken and mismatched boundaries, cut-off bodies,
// garbage, odd headers and charsets).
// Each fault in one body out of five, so that most bodies get far enough for the next one to matter.
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const mostly = <T>(usual: T, ...others: T[]) =>
  fc.oneof({ arbitrary: fc.constant(usual), weight: 4 }, { arbitrary: fc.constantFrom(...others), weight: 1 });
const partName = fc.oneof(
  fc.constantFrom(
    ...FIELDS,
    '',
    'file',
    'attachments[]',
    'attachments',
    'fields[order]',
    'fields[constructor]',
    '__proto__[polluted]',
    'fields[__proto__]',
    'a[b][c]',
    '[]',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 40 }),
);
const rawPart = fc.record({
  disposition: mostly('form-data', 'FORM-DATA', 'attachment', ''),
  name: fc.option(partName, { nil: undefined }), // undefined: no name parameter at all
  quoting: mostly('quoted', 'bare', 'extended'),
  filename: sometimes(fc.oneof(text, fc.constant(''))),
  headers: fc.array(
    fc.constantFrom(
      'Content-Type: text/plain',
      'Content-Type: application/octet-stream',
      'Content-Type: text/plain; charset=x-nope',
      'Content-Type: text/plain; charset=utf-16le',
      'Content-Transfer-Encoding: base64',
      'no colon here',
      `X-Pad: ${'p'.repeat(20_000)}`,
      'X-A: b\r\n'.repeat(200).slice(0, -2),
    ),
    { maxLength: 1 },
  ),
  value: fc.oneof(text, fc.uint8Array({ maxLength: 200 })),
});
const rawMultipart = fc.record({
  boundary: mostly('fuzz-boundary', 'b', 'x'.repeat(70), 'x'.repeat(71), 'has space'),
  header: mostly<'same' | 'quoted' | 'missing' | 'empty' | 'other'>('same', 'quoted', 'missing', 'empty', 'other'),
  preamble: sometimes(fc.uint8Array({ maxLength: 40 })),
  parts: fc.array(rawPart, { minLength: 1, maxLength: 6 }),
  ending: mostly('final', 'none', 'no-dashes', 'lf-only'),
  cut: sometimes(fc.nat()), // the body stops here
  garbage: sometimes(fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 40 }))),
});

function rawMultipartBody(m: typeof rawMultipart extends fc.Arbitrary<infer T> ? T : never, ticket: string) {
  const contentType = {
    same: `multipart/form-data; boundary=${m.boundary}`,
    quoted: `multipart/form-data; boundary="${m.boundary}"`,
    missing: 'multipart/form-data',
    empty: 'multipart/form-data; boundary=',
    other: 'multipart/form-data; boundary=not-the-one',
  }[m.header];
  const chunks: Buffer[] = [];
  if (m.preamble) chunks.push(Buffer.from(m.preamble));
  const parts = [...m.parts, { ...m.parts[0]!, name: 'ticket_id', value: ticket, filename: undefined }];
  for (const p of m.parts.length ? parts : []) {
    let disposition = p.disposition;
    const param = (key: string, v: string) =>
      p.quoting === 'quoted'
        ? `; ${key}="${v}"`
        : p.quoting === 'bare'
          ? `; ${key}=${v}`
          : `; ${key}*=UTF-8''${encodeURIComponent(v)}`;
    if (p.name !== undefined) disposition += param('name', p.name);
    if (p.filename !== undefined) disposition += param('filename', p.filename);
    const headers = [`Content-Disposition: ${disposition}`, ...p.headers].join('\r\n');
    chunks.push(Buffer.from(`--${m.boundary}\r\n${headers}\r\n\r\n`, 'utf8'));
    chunks.push(typeof p.value === 'string' ? Buffer.from(p.value, 'utf8') : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  if (m.ending === 'final') chunks.push(Buffer.from(`--${m.boundary}--\r\n`));
  if (m.ending === 'no-dashes') chunks.push(Buffer.from(`--${m.boundary}\r\n`));
  let body = Buffer.concat(chunks);
  if (m.ending === 'lf-only') body = Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  if (m.garbage) {
    const at = m.garbage[0] % (body.length + 1);
    body = Buffer.concat([body.subarray(0, at), Buffer.from(m.garbage[1]), body.subarray(at)]);
  }
  if (m.cut !== undefined) body = body.subarray(0, m.cut % (body.length + 1));
  return { contentType, body };
}

// Mostly each endpoint's own method, so most requests get past routing into keys, bodies and lookups.
const OWN: Record<string, string> = {
  list: 'GET',
  ticket: 'GET',
  meta: 'GET',
  kb: 'GET',
  file: 'GET',
  me: 'GET',
  'widget-config': 'GET',
  'openapi.json': 'GET',
  delete: 'DELETE',
};
const request = fc.record({
  method: fc.oneof(
    { arbitrary: fc.constant('own'), weight: 85 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'OPTIONS', 'PATCH'), weight: 15 },
  ),
  path: fc.constantFrom(...PATHS),
  key: fc.constantFrom('pk', 'sk', 'pkTest', 'skTest', 'none', 'bad', 'garbage'),
  encoding: fc.oneof(
    { arbitrary: fc.constantFrom('json', 'form', 'multipart', 'text', 'none', 'broken-json'), weight: 6 },
    { arbitrary: fc.constant('raw-multipart'), weight: 2 },
  ),
  raw: rawMultipart,
  body: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }),
  query: fc.dictionary(fc.constantFrom(...FIELDS), text, { maxKeys: 3 }),
  useTicket: fc.boolean(),
  resource: fc.constantFrom(...RESOURCES),
  file: fc.option(fc.record({ name: text, data: fc.uint8Array({ maxLength: 64 }) }), { nil: undefined }),
  idempotency: fc.option(text, { nil: undefined }),
});

type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

function build(raw: Req) {
  const r = {
    ...raw,
    method:
      raw.method === 'own'
        ? (OWN[raw.path] ?? (raw.path.startsWith('admin') && raw.useTicket ? 'GET' : 'POST'))
        : raw.method,
  };
  const keys: Record<string, string | null> = {
    pk: s.keys.pk,
    sk: s.keys.sk,
    pkTest: s.keys.pkTest,
    skTest: s.keys.skTest,
    none: null,
    bad: `sk_live_${'q'.repeat(30)}`,
    garbage: 'Basic \u00ff',
  };
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(r.query)) query.append(k, v.slice(0, 500));
  if (r.path === 'admin' || r.path === 'admin.php') query.set('r', r.resource);
  if (r.useTicket) query.set(r.path === 'ticket' ? 'id' : 'ticket_id', ticketId);
  const body: Record<string, unknown> = { ...r.body };
  if (r.useTicket) body.ticket_id = ticketId;
  const headers: Record<string, string> = {};
  const key = keys[r.key];
  if (key !== null && key !== undefined) headers.Authorization = key.startsWith('Basic') ? key : `Bearer ${key}`;
  // Header values are bytes: what a client can send at all (fetch refuses anything above \xff).
  if (r.idempotency !== undefined)
    headers['Idempotency-Key'] = r.idempotency.replace(/[^\x20-\x7e\x80-\xff]/g, '').slice(0, 300) || 'k';
  let payload: string | FormData | URLSearchParams | Buffer | undefined;
  if (r.method !== 'GET' && r.method !== 'OPTIONS') {
    if (r.encoding === 'json') {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    } else if (r.encoding === 'broken-json') {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body).slice(0, -1);
    } else if (r.encoding === 'form') {
      payload = new URLSearchParams(
        Object.entries(body).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
        ]),
      );
    } else if (r.encoding === 'multipart') {
      const form = new FormData();
      for (const [k, v] of Object.entries(body)) form.append(k, typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
      if (r.file)
        form.append(r.path === 'upload' ? 'file' : 'attachments[]', new Blob([r.file.data]), r.file.name || 'f');
      payload = form;
    } else if (r.encoding === 'raw-multipart') {
      const raw = rawMultipartBody(r.raw, r.useTicket ? ticketId : 'tkt_x');
      headers['Content-Type'] = raw.contentType;
      payload = raw.body;
    } else if (r.encoding === 'text') {
      headers['Content-Type'] = 'text/plain';
      payload = JSON.stringify(body);
    }
  }
  return {
    url: `${s.base}/${r.path}?${query}`,
    init: { method: r.method, headers, body: payload, redirect: 'manual' as const },
  };
}

describe('fuzzing every endpoint', () => {
  it('answers 10,000 random and mutated requests without a 5xx, always in the documented error shape', async () => {
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const seen = new Map<number, number>();
    let count = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { url, init } = build(r);
        const res = await fetch(url, init);
        const body = await res.text();
        count++;
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        expect(res.status, `${r.method} ${url}\n${body.slice(0, 300)}`).toBeLessThan(500);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        if (res.status >= 400) {
          expect(Object.keys(DOCUMENTED).map(Number), `${res.status} ${body}`).toContain(res.status);
          const parsed = JSON.parse(body) as {
            error: { code: string; message: string; param?: string; details?: unknown[] };
          };
          expect(Object.keys(parsed)).toEqual(['error']);
          expect(DOCUMENTED[res.status]).toContain(parsed.error.code);
          expect(typeof parsed.error.message).toBe('string');
          expect(body).not.toMatch(/\n\s+at |node_modules|\/src\/|sk_live_S/);
        }
      }),
      { numRuns: 10_000, seed: 20261122, endOnFailure: true },
    );
    expect(count).toBeGreaterThanOrEqual(10_000);
    // Nothing reached Object.prototype.
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The server still works normally afterwards (the fuzzer may well have deleted the first ticket).
    const after = await createTicket(s);
    expect((await s.call('GET', `/ticket?id=${after.id}`)).status).toBe(200);
    console.log(
      `fuzzed ${count} requests; statuses: ${JSON.stringify(Object.fromEntries([...seen].sort((a, b) => a[0] - b[0])))}`,
    );
  });
});
