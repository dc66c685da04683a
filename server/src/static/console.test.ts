import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';
import { CONSOLE_DIST } from './assets.js';
import { CONSOLE_CSP, PREVIEW_CSP } from './console.js';

let s: TestServer;
beforeAll(async () => {
  if (!existsSync(join(CONSOLE_DIST, 'index.html')))
    throw new Error('console/dist is missing: run `pnpm build` first (pnpm test does)');
  s = await startServer();
});
afterAll(() => s.close());

const index = () => readFileSync(join(CONSOLE_DIST, 'index.html'), 'utf8');

describe('the console', () => {
  it('answers index.html for /console/ and every client-side route, never cached, with the strict CSP', async () => {
    for (const path of ['/console/', '/console/tickets/tkt_abc', '/console/profile', '/console/sign-in?next=%2F']) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(index());
    }
  });

  it('serves the hashed files index.html names as immutable and compressed', async () => {
    const names = [...index().matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(names.some((n) => n.endsWith('.js'))).toBe(true);
    expect(names.some((n) => n.endsWith('.css'))).toBe(true);
    const { request } = await import('node:http');
    for (const name of names) {
      const raw = readFileSync(join(CONSOLE_DIST, name.replace('/console/', '')));
      const answer = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((ok) =>
        request(`${s.url}${name}`, { headers: { 'Accept-Encoding': 'gzip' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => ok({ headers: r.headers, body: Buffer.concat(chunks) }));
        }).end(),
      );
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(answer.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(answer.body).equals(raw)).toBe(true);
    }
  });

  it('has no inline script or style for the CSP to refuse', () => {
    const html = index();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="/);
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i);
    const scripts = readdirSync(join(CONSOLE_DIST, 'assets')).filter((f) => f.endsWith('.js'));
    // No eval-like code either (script-src 'self' has no 'unsafe-eval').
    for (const f of scripts)
      expect(readFileSync(join(CONSOLE_DIST, 'assets', f), 'utf8')).not.toMatch(/\bnew Function\(|\beval\(/);
  });

  it('serves the design preview page framable by the console only, with its own strict CSP', async () => {
    const res = await fetch(`${s.url}/console/widget-preview`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PREVIEW_CSP);
    // Framed by pages of this origin only (the console's design screen), never by another site.
    expect(PREVIEW_CSP).toContain("frame-ancestors 'self'");
    expect(PREVIEW_CSP).toContain("script-src 'self';");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const html = await res.text();
    expect(html).toBe(readFileSync(join(CONSOLE_DIST, 'widget-preview.html'), 'utf8'));
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc="\/console\/assets\//);
    expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i);
    // The console's own pages stay unframable.
    expect((await fetch(`${s.url}/console/settings/design`)).headers.get('x-frame-options')).toBe('DENY');
  });

  it('redirects /console to /console/ keeping the query, and 404s missing hashed files and other methods', async () => {
    const res = await fetch(`${s.url}/console?view=mine`, { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/console/?view=mine');
    const missing = await fetch(`${s.url}/console/assets/index-nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('not_found');
    expect((await fetch(`${s.url}/console/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${s.url}/consoles`)).status).toBe(404);
  });
});
