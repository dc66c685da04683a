import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../http/endpoints.js';
import { startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe('/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document covering every endpoint, with every $ref resolving', async () => {
    const res = await s.call('GET', '/openapi.json', { key: s.keys.pk });
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toMatch(/\/v1$/);

    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const documented = Object.keys(doc.paths).map((p) => p.slice(1));
    for (const name of Object.keys(ENDPOINTS).filter((n) => n !== 'openapi.json')) expect(documented).toContain(name);

    const refs = [...res.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of new Set(refs)) expect(doc.components.schemas).toHaveProperty(r);

    // Generated from the same schemas the server validates with.
    const create = doc.paths['/create'].post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['name', 'email', 'subject', 'message']);
    expect(create.properties.subject.maxLength).toBe(300);
    expect(doc.components.schemas.Ticket.required).toContain('close_request');
  });
});
