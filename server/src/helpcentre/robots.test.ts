import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// /robots.txt as a crawler reads it: where the help centre's sitemap is, and which paths are no pages.

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await s.call('POST', '/admin?r=kb', { json: { title: 'Shipping times', body: 'Two days.', published: true } });
});
afterAll(() => s.close());

const robots = async () => {
  const res = await fetch(`${s.url}/robots.txt`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  return res.text();
};

/** Whether a crawler following `text` (group `*`, the longest matching rule wins, Allow on a tie) may fetch `path`. */
function allowed(text: string, path: string): boolean {
  let best = { length: -1, allow: true };
  for (const line of text.split('\n')) {
    const m = /^(allow|disallow):\s*(\S*)/i.exec(line.trim());
    if (!m || !m[2] || !path.startsWith(m[2])) continue;
    const allow = m[1]!.toLowerCase() === 'allow';
    if (m[2].length > best.length || (m[2].length === best.length && allow)) best = { length: m[2].length, allow };
  }
  return best.allow;
}

describe('/robots.txt', () => {
  it('points to the help centre’s sitemap, which answers', async () => {
    const text = await robots();
    expect(text).toMatch(/^User-agent: \*$/m);
    const sitemap = /^Sitemap: (\S+)$/m.exec(text)?.[1];
    expect(sitemap).toBe(`${s.url}/help/sitemap.xml`);
    const res = await fetch(sitemap!);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`${s.url}/help/en/shipping-times`);
  });

  it('keeps the API, the console, the widget and ticket links out, and lets the help centre in', async () => {
    const text = await robots();
    for (const path of ['/v1/kb?q=x', '/v1/widget-config', '/console/', '/console/settings/kb', '/widget.js', '/t/abc'])
      expect(allowed(text, path), path).toBe(false);
    for (const path of ['/help/', '/help/en/shipping-times', '/help/sitemap.xml'])
      expect(allowed(text, path), path).toBe(true);
  });

  it('names no sitemap when the knowledge base is switched off', async () => {
    const modules = (await s.call('GET', '/admin?r=modules')).body.modules;
    await s.call('POST', '/admin?r=modules', {
      json: { modules: modules.map((m: { name: string }) => (m.name === 'kb' ? { ...m, enabled: false } : m)) },
    });
    try {
      const text = await robots();
      expect(text).not.toContain('Sitemap:');
      expect(allowed(text, '/v1/kb')).toBe(false);
    } finally {
      await s.call('POST', '/admin?r=modules', { json: { modules } });
    }
  });
});
