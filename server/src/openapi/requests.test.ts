import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';

// Requests held to the served document, as answers are (test-support/openapi-check.ts): a request the
// document allows is accepted, one it forbids is refused with 400 naming the field. A client generated
// from the document, or a fuzzer driven by it, then meets no surprise either way.

let s: TestServer;
let doc: any;
let ajv: Ajv2020;
beforeAll(async () => {
  s = await startServer();
  doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('cidrv4', true);
  ajv.addFormat('cidrv6', true);
  ajv.addSchema(doc, 'openapi');
});
afterAll(() => s.close());

const pointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
/** Whether the document's schema at `path` (a JSON pointer into it) takes `value`. */
const allows = (path: string, value: unknown) => ajv.getSchema(`openapi#${path}`)!(value) as boolean;

describe('requests against the document', () => {
  it('an empty query value is refused exactly where the document refuses it', async () => {
    const seen = { allowed: 0, refused: 0 };
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const get = item.get;
      // Probes live outside /v1; legacy paths only redirect.
      if (!get || path.includes('.php') || path === '/health' || path === '/ready' || path === '/events') continue;
      const parameters: any[] = get.parameters ?? [];
      // Operations that need a query value first (/admin's r, /ticket's id or number) are covered by
      // their own tests: here the request without any query must be answered.
      if (parameters.some((p) => p.in === 'query' && p.required)) continue;
      if ((await s.call('GET', path, { key: s.keys.sk })).status === 400) continue;
      for (const [index, p] of parameters.entries()) {
        if (p.in !== 'query') continue;
        const res = await s.call('GET', `${path}?${encodeURIComponent(p.name)}=`, { key: s.keys.sk });
        const where = `GET ${path}?${p.name}= → ${res.status} ${res.text.slice(0, 200)}`;
        if (allows(`/paths/${pointer(path)}/get/parameters/${index}/schema`, '')) {
          seen.allowed++;
          expect(res.status === 400 && res.body.error.param === p.name, where).toBe(false);
        } else {
          seen.refused++;
          expect(res.status, where).toBe(400);
          expect(res.body.error, where).toMatchObject({ code: 'validation_failed', param: p.name });
        }
      }
    }
    // Both kinds occur (e.g. /list `priority=` is "not given", `sort=` is refused): the loop is not empty.
    expect(seen.allowed).toBeGreaterThan(10);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it("a body's one-line, not-blank and control-character rules are the document's", async () => {
    const schema = '/paths/~1create/post/requestBody/content/application~1json/schema';
    const values = ['', ' ', 'Ada', 'a\nb', 'a\r\nb', 'a\tb', 'a\u2028b', 'a\u0001b', '\u000b', 'ü ✓ 日本', null];
    let refused = 0;
    // (`category` is checked against the configured list, which no document can hold.)
    for (const field of ['name', 'subject', 'message', 'page_url']) {
      for (const value of values) {
        const body = { ...ticketInput(), [field]: value };
        const res = await s.call('POST', '/create', { key: s.keys.pk, json: body });
        const where = `${field}=${JSON.stringify(value)} → ${res.status} ${res.text.slice(0, 200)}`;
        if (allows(schema, body)) {
          expect(res.status, where).toBe(201);
        } else {
          refused++;
          expect(res.status, where).toBe(400);
          expect(res.body.error.param, where).toBe(field);
        }
      }
    }
    expect(refused).toBeGreaterThan(15);
  });

  it('/bulk must change something, and /merge needs two tickets, as the document says', async () => {
    const ticket = await createTicket(s);
    const set = '/paths/~1bulk/post/requestBody/content/application~1json/schema';
    expect(allows(set, { ticket_ids: [ticket.id], set: {} })).toBe(false);
    const nothing = await s.call('POST', '/bulk', { key: s.keys.sk, json: { ticket_ids: [ticket.id], set: {} } });
    expect(nothing.status).toBe(400);
    expect(nothing.body.error.param).toBe('set');
    expect(allows(set, { ticket_ids: [ticket.id], set: { priority: 'high' } })).toBe(true);
    const change = { ticket_ids: [ticket.id], set: { priority: 'high' } };
    expect((await s.call('POST', '/bulk', { key: s.keys.sk, json: change })).status).toBe(200);

    const merge = doc.paths['/merge'].post.requestBody.content['application/json'].schema;
    expect(merge.properties.into_id.description).toMatch(/another ticket than ticket_id/);
    const self = await s.call('POST', '/merge', { key: s.keys.sk, json: { ticket_id: ticket.id, into_id: ticket.id } });
    expect(self.status).toBe(400);
    expect(self.body.error.param).toBe('into_id');
  });

  it('a malformed X-Ticketing-Identity of any length makes the customer anonymous, never an error', async () => {
    const header = doc.paths['/my-tickets'].get.parameters.find((p: any) => p.name === 'X-Ticketing-Identity');
    expect(header.schema).toEqual({ type: 'string' });
    for (const value of ['x', `${'a'.repeat(64)}.${'b'.repeat(1200)}`, 'zz.%E0%A4%A']) {
      const res = await s.call('GET', '/my-tickets', { key: s.keys.pk, headers: { 'X-Ticketing-Identity': value } });
      expect(res.status, value.slice(0, 20)).not.toBe(400);
      expect(res.status).not.toBe(500);
    }
  });

  it('follows its links from a new ticket to reading and replying to it', async () => {
    const created = await s.call('POST', '/create', {
      key: s.keys.sk,
      json: doc.paths['/create'].post.requestBody.content['application/json'].example,
    });
    expect(created.status).toBe(201);
    const links = doc.paths['/create'].post.responses['201'].links;
    const value = (expression: string) => {
      const [, at] = /^\$response\.body#(.*)$/.exec(expression)!;
      return at!
        .split('/')
        .slice(1)
        .reduce((o: any, k) => o[k], created.body);
    };
    const ids = Object.values<any>(doc.paths).flatMap((p) =>
      Object.values<any>(p)
        .map((o) => o?.operationId)
        .filter(Boolean),
    );
    for (const link of Object.values<any>(links)) expect(ids).toContain(link.operationId);

    const read = await s.call('GET', `/ticket?id=${value(links.read.parameters.id)}`, { key: s.keys.sk });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    const reply = Object.fromEntries(
      Object.entries<string>(links.reply.requestBody).map(([k, v]) => [k, v.startsWith('$') ? value(v) : v]),
    );
    const replied = await s.call('POST', '/reply', { key: s.keys.sk, json: reply });
    expect(replied.status).toBe(201);
  });
});
