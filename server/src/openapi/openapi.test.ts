import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../app.js';
import { startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
let doc: any;
beforeAll(async () => {
  s = await startServer();
  doc = (await s.call('GET', '/openapi.json', { key: null })).body;
});
afterAll(() => s.close());

const op = (method: string, path: string) => doc.paths[path][method];
/** A path item's operations (it may also hold `servers`). */
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];
const operations = (item: any): [string, any][] => Object.entries<any>(item).filter(([k]) => METHODS.includes(k));
const bodySchema = (method: string, path: string, type = 'application/json') =>
  op(method, path).requestBody.content[type].schema;
const param = (method: string, path: string, name: string) =>
  op(method, path).parameters.find((p: { name: string }) => p.name === name);

describe('/v1/openapi.json', () => {
  it('is served without a key: it holds no secret', async () => {
    const res = await s.call('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers[0].url).toBe(`${s.url}/v1`);
    expect(op('get', '/openapi.json').security).toEqual([]);
    expect(res.headers.get('access-control-allow-origin')).toBeNull(); // no Origin sent
  });

  it("passes Redocly's recommended rules without an error", async () => {
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('documents every route of the table with its answers and errors, once', () => {
    for (const route of ROUTES) {
      const operation = op(route.method, route.path);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      for (const status of Object.keys(route.responses)) expect(operation.responses).toHaveProperty(status);
      if (route.access !== 'open') expect(operation.responses).toHaveProperty('401');
    }
    const ids = Object.values(doc.paths).flatMap((p: any) => operations(p).map(([, o]) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(schemas|headers)\/([^"]+)"/g)];
    for (const [, kind, name] of refs) expect(doc.components[kind!]).toHaveProperty(name!);
  });

  it('keeps the validation rules the server applies', () => {
    const create = bodySchema('post', '/create');
    expect(create.required).toEqual(['name', 'email', 'subject', 'message']);
    expect(create.properties.subject.maxLength).toBe(300);
    expect(create.properties.email).toMatchObject({ format: 'email', maxLength: 254 });
    expect(new RegExp(create.properties.email.pattern).test('a@mail-.example')).toBe(false);
    expect(new RegExp(create.properties.email.pattern).test('ada@example.com')).toBe(true);
    const [pageUrl, ...empty] = create.properties.page_url.anyOf;
    expect(pageUrl.format).toBe('uri');
    expect(new RegExp(pageUrl.pattern).test('javascript:alert(1)')).toBe(false);
    // Optional fields: empty (and null in JSON) is "not given", as the server reads it.
    expect(empty).toEqual([{ type: 'string', maxLength: 0 }, { type: 'null' }]);
    expect(create.properties.page_url.description).toMatch(/empty: as if not given/);
    expect(bodySchema('post', '/create', 'multipart/form-data').properties['attachments[]']).toMatchObject({
      type: 'array',
      maxItems: 10,
      items: { type: 'string', format: 'binary' },
    });

    const score = bodySchema('post', '/rate').properties.score.anyOf;
    expect(score).toContainEqual({ type: 'integer', minimum: 1, maximum: 5 });
    expect(score.find((b: any) => b.type === 'string').pattern).toBe('^0*[1-5]$');

    const limit = param('get', '/list', 'limit').schema.anyOf;
    expect(limit.find((b: any) => b.type === 'integer').minimum).toBe(1);
    expect(param('get', '/list', 'offset').schema.anyOf.find((b: any) => b.type === 'integer').minimum).toBe(0);
    expect(param('get', '/admin', 'r').schema.enum).toEqual(
      expect.arrayContaining(['all', 'design', 'audit', 'outbox']),
    );
    expect(param('get', '/admin', 'r').required).toBe(true);
    expect(param('get', '/ticket', 'email').description).toMatch(/required with a public key/);
    expect(param('get', '/ticket', 'If-None-Match')).toMatchObject({ in: 'header' });
    expect(param('post', '/create', 'Idempotency-Key')).toMatchObject({ in: 'header' });
    expect(op('post', '/admin').requestBody.content).toEqual({ 'application/json': expect.anything() });
    expect(op('post', '/upload').requestBody.content).toEqual({ 'multipart/form-data': expect.anything() });
  });

  it('documents 201, 304, 308 and 405 answers, the headers, and what /file really sends', () => {
    expect(op('post', '/create').responses).toHaveProperty('201');
    expect(op('post', '/reply').responses).toHaveProperty('201');
    expect(op('post', '/upload').responses).toHaveProperty('201');
    expect(op('get', '/ticket').responses['304'].headers).toHaveProperty('ETag');
    expect(op('get', '/ticket').responses['200'].headers).toHaveProperty('ETag');
    expect(op('post', '/admin').responses['405'].headers).toHaveProperty('Allow');
    expect(op('post', '/create').responses['429'].headers).toHaveProperty('Retry-After');
    expect(op('get', '/list').responses['200'].headers).toHaveProperty('X-Request-Id');
    const legacy = doc.paths['/{endpoint}.php'];
    expect(legacy.post.responses['308'].headers).toHaveProperty('Location');
    expect(legacy.post.parameters[0].schema.enum).toContain('create');
    expect(doc.paths['/admin/mail-test.php'].post.responses['308'].headers).toHaveProperty('Location');
    expect(Object.keys(op('get', '/file').responses['200'].content)).toEqual(
      expect.arrayContaining(['image/png', 'application/pdf', 'text/plain; charset=utf-8', 'application/zip']),
    );
  });

  it('has no bare object among the answers, and the ticket views exclude each other', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of operations(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          for (const media of Object.values<any>(response.content ?? {})) {
            const schema = media.schema;
            const bare = schema.type === 'object' && !schema.properties && !schema.additionalProperties;
            expect(bare, `${method} ${path} ${status}`).toBe(false);
          }
        }
      }
    }
    const ticket = op('get', '/ticket').responses['200'].content['application/json'].schema;
    expect(ticket.oneOf).toEqual([
      { $ref: '#/components/schemas/Ticket' },
      { $ref: '#/components/schemas/PublicTicket' },
    ]);
    expect(doc.components.schemas.PublicTicket.additionalProperties).toBe(false);
    expect(op('get', '/kb').responses['200'].content['application/json'].schema.oneOf).toHaveLength(2);
  });
});
