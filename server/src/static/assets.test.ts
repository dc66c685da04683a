import { existsSync, readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';
import { WIDGET_DIST } from './assets.js';

let s: TestServer;
beforeAll(async () => {
  if (!existsSync(join(WIDGET_DIST, 'widget.js')))
    throw new Error('widget/dist is missing: run `pnpm build` first (pnpm test does)');
  s = await startServer();
});
afterAll(() => s.close());

describe('the widget files', () => {
  it('serves widget.js with a short cache, compressed, to any site, with the design written in', async () => {
    const raw = readFileSync(join(WIDGET_DIST, 'widget.js'), 'utf8');
    const br = await fetch(`${s.url}/widget.js`, { headers: { 'Accept-Encoding': 'br' } });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(br.headers.get('cache-control')).toBe('public, max-age=300');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toContain('Accept-Encoding');
    expect(br.headers.get('access-control-allow-origin')).toBe('*');
    // fetch decodes: the built loader, its first line (V8's compile hint) first, inside a function
    // whose argument is the stored design
    const body = await br.text();
    const [hint, ...rest] = raw.split('\n');
    expect(hint).toBe('//# allFunctionsCalledOnLoad');
    expect(body.startsWith(`${hint}\n(function(__ticketingDesign){${rest.join('\n')}`)).toBe(true);
    const design = (await s.call('GET', '/admin?r=design')).body.design;
    expect(body.endsWith(`})(${JSON.stringify(design)});\n`)).toBe(true);
    const plain = await fetch(`${s.url}/widget.js`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Number(plain.headers.get('content-length'))).toBe(Buffer.byteLength(body));
  });

  it('changes widget.js when the design changes, and answers 304 to a browser that has it', async () => {
    const first = await fetch(`${s.url}/widget.js`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[\w-]{22}"$/);
    // As a browser revalidates its copy (fetch() would add Cache-Control: no-cache, and get a 200).
    const again = await new Promise<IncomingMessage>((ok) =>
      request(`${s.url}/widget.js`, { headers: { 'If-None-Match': etag } }, ok).end(),
    );
    expect(again.statusCode).toBe(304);
    expect(again.headers['cache-control']).toBe('public, max-age=300');
    expect(again.headers.vary).toContain('Accept-Encoding');
    // A title that would end the script if it were pasted in unescaped stays a string.
    const title = 'Help "desk" </script> \u2028 })();alert(1)//';
    expect((await s.call('POST', '/admin?r=design', { json: { title } })).status).toBe(200);
    const changed = await fetch(`${s.url}/widget.js`, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const code = await changed.text();
    const carried: unknown[] = [];
    // Run as a page would, with the loader replaced by a probe: the argument is the design, as stored.
    new Function('probe', code.replace(/\(function\(__ticketingDesign\)\{[\s\S]*\n\}\)/, '(probe)'))((d: unknown) =>
      carried.push(d),
    );
    expect(carried).toEqual([expect.objectContaining({ title })]);
    await s.call('POST', '/admin?r=design', { json: {} });
  });

  it('honours q-values in Accept-Encoding (q=0 means "not this one")', async () => {
    const encodingFor = async (accept: string) =>
      (await fetch(`${s.url}/widget.js`, { headers: { 'Accept-Encoding': accept } })).headers.get('content-encoding');
    expect(await encodingFor('br;q=0, gzip')).toBe('gzip');
    expect(await encodingFor('gzip;q=0, br;q=0')).toBeNull();
    expect(await encodingFor('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(await encodingFor('*')).toBe('br');
  });

  it('serves the hashed panel files as immutable, the way widget.js names them', async () => {
    const loader = readFileSync(join(WIDGET_DIST, 'widget.js'), 'utf8');
    const panel = /widget\/panel-[\w-]+\.js/.exec(loader)![0];
    const res = await fetch(`${s.url}/${panel}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('access-control-allow-origin')).toBe('*'); // import() fetches modules with CORS
    expect((await res.text()).length).toBeGreaterThan(1000);
    // gzip and brotli decode to the same bytes
    const raw = readFileSync(join(WIDGET_DIST, panel.replace('widget/', 'widget/')));
    const compressed = (enc: string) =>
      new Promise<Buffer>((ok) =>
        request(`${s.url}/${panel}`, { headers: { 'Accept-Encoding': enc } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => ok(Buffer.concat(chunks)));
        }).end(),
      );
    expect(gunzipSync(await compressed('gzip')).equals(raw)).toBe(true);
    expect(brotliDecompressSync(await compressed('br')).equals(raw)).toBe(true);
  });

  it('answers 404 for files that are not there, and never serves the build manifest', async () => {
    expect((await fetch(`${s.url}/widget/nope.js`)).status).toBe(404);
    expect((await fetch(`${s.url}/.vite/manifest.json`)).status).toBe(404);
    expect((await fetch(`${s.url}/lib/index.js`)).status).toBe(404);
  });
});
