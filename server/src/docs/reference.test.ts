import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { headers });

describe('/docs', () => {
  it('serves the reference page and everything it loads from this server, under a strict policy', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:)/);
    const html = await page.text();
    expect(html).not.toMatch(/<script>/); // no inline script
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      expect(url, 'no CDN').toMatch(/^\/docs\//);
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const init = await (await get('/docs/reference.js')).text();
    expect(init).toContain("url: '/docs/openapi.json'");
    expect(init).toContain('validatorUrl: null'); // the document is not sent to an outside validator
  });

  it('serves the OpenAPI document without a key, the same as /v1/openapi.json', async () => {
    const open = await get('/docs/openapi.json');
    expect(open.status).toBe(200);
    const api = await s.call('GET', '/openapi.json', { key: null }); // open too: it holds no secret
    expect(api.status).toBe(200);
    const doc = (await open.json()) as Record<string, unknown>;
    expect(doc.servers).toEqual([{ url: '/v1' }]); // "Try it out" calls the page's own origin
    // The probes' own servers (outside /v1) follow the base in the same way.
    const probes = doc.paths as Record<string, { servers?: unknown }>;
    expect(probes['/health']!.servers).toEqual([{ url: '/' }]);
    const apiPaths = api.body.paths as Record<string, { servers?: unknown }>;
    const paths = Object.fromEntries(
      Object.entries(probes).map(([k, v]) => [k, v.servers ? { ...v, servers: apiPaths[k]!.servers } : v]),
    );
    expect({ ...doc, servers: api.body.servers, paths }).toEqual(api.body);
    // References resolve from the document root: no schema renames its base with a fragment-only $id.
    expect(JSON.stringify(api.body)).not.toContain('"$id"');
  });

  it('sends the large bundle compressed', async () => {
    const res = await get('/docs/assets/swagger-ui-bundle.js', { 'Accept-Encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const sent = Number(res.headers.get('content-length'));
    const plain = await res.text(); // fetch has undone the gzip
    expect(plain).toContain('SwaggerUIBundle');
    expect(sent).toBeLessThan(plain.length / 2);
  });

  it('leaves other methods and unknown paths to the API', async () => {
    expect((await fetch(`${s.url}/docs`, { method: 'POST' })).status).toBe(404);
    expect((await get('/docs/assets/../../package.json')).status).toBe(404);
    expect((await get('/docs/nothing.js')).status).toBe(404);
  });
});
