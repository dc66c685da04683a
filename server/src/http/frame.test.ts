import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { requestFrame } from './frame.js';

// The frame alone in a Koa app, over real HTTP: what every request of the server goes through.
const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok)))));

async function start(closing = new AbortController()) {
  const lines: string[] = [];
  const errors: string[] = [];
  const logger = pino({ level: 'info', base: undefined }, { write: (l: string) => errors.push(l) });
  let release: () => void = () => {};
  const held = new Promise<void>((ok) => (release = ok));
  const app = new Koa();
  app.use(
    requestFrame({
      logger,
      logLines: (line) => lines.push(line),
      probes: { paths: new Set(['/health']), answer: async (ctx) => void (ctx.body = { status: 'ok' }) },
      closing: closing.signal,
    }),
  );
  app.use(async (ctx) => {
    if (ctx.path === '/ok') ctx.body = { ok: true };
    if (ctx.path === '/refused') throw new ApiError(409, 'ticket_closed', 'The ticket is closed.');
    if (ctx.path === '/broken') throw new Error('secret detail at /srv/data');
    if (ctx.path === '/held') {
      await held;
      ctx.body = { ok: true };
    }
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((ok) => server.once('listening', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logged = () => lines.map((l) => JSON.parse(l) as { path: string; status: number; reqId: string });
  return { url, logged, errors, release, closing };
}

describe('the request frame', () => {
  it('gives every answer an id and nosniff, and logs each request but the probes', async () => {
    const s = await start();
    for (const path of ['/ok', '/refused', '/nowhere', '/health']) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.headers.get('x-request-id'), path).toMatch(/^[A-Za-z0-9_-]{12}-[0-9a-z]+$/);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const kept = await fetch(`${s.url}/ok`, { headers: { 'X-Request-Id': 'proxy-given-id-1' } });
    expect(kept.headers.get('x-request-id')).toBe('proxy-given-id-1');
    expect(s.logged().map((l) => [l.path, l.status])).toEqual([
      ['/ok', 200],
      ['/refused', 409],
      ['/nowhere', 404],
      ['/ok', 200],
    ]);
    expect(s.logged()[3]!.reqId).toBe('proxy-given-id-1');
  });

  it('renders errors in the API shape, and an unexpected one without its detail (logged)', async () => {
    const s = await start();
    const refused = await fetch(`${s.url}/refused`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: { code: 'ticket_closed', message: 'The ticket is closed.' } });
    const missing = await fetch(`${s.url}/nowhere`);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'No such endpoint.' } });
    const broken = await fetch(`${s.url}/broken`);
    expect(broken.status).toBe(500);
    const text = await broken.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: 'Something went wrong on our side.' },
    });
    expect(text).not.toContain('/srv/data');
    expect(s.errors.join('')).toContain('secret detail at /srv/data');
    expect(s.logged().at(-1)).toMatchObject({ path: '/broken', status: 500 });
  });

  it('closes keep-alive connections once the server closes its port, for a request in flight too', async () => {
    const s = await start();
    expect((await fetch(`${s.url}/ok`)).headers.get('connection')).toBe('keep-alive');
    const inFlight = fetch(`${s.url}/held`);
    await new Promise((ok) => setTimeout(ok, 50));
    s.closing.abort();
    s.release();
    expect((await inFlight).headers.get('connection')).toBe('close');
    expect((await fetch(`${s.url}/ok`)).headers.get('connection')).toBe('close');
  });
});
