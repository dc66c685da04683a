import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectApp } from './direct-app.js';

// DirectApp alone, over real HTTP: what it claims is answered outside Koa's chain, and written as Koa
// would write it; everything else goes through the chain. The server's own routes take this way in
// every API test (app.ts).
const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok)))));

const ANSWERS: Record<string, (ctx: Context) => void | Promise<void>> = {
  '/json': (ctx) => void (ctx.body = { ok: true, text: 'é' }),
  '/text': (ctx) => {
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = '{"stored":true}';
  },
  '/buffer': (ctx) => {
    ctx.type = 'text/csv';
    ctx.body = Buffer.from('a,b\n');
  },
  '/none': (ctx) => void (ctx.status = 202),
  '/not-modified': (ctx) => {
    ctx.set('ETag', '"v1"');
    ctx.type = 'json';
    ctx.status = 304;
  },
  '/stream': (ctx) => {
    const stream = new PassThrough();
    ctx.type = 'text/event-stream';
    ctx.body = stream;
    stream.write('data: 1\n\n');
    setTimeout(() => stream.end('data: 2\n\n'), 20);
  },
  '/empty': (ctx) => {
    ctx.body = null; // on purpose: an empty answer, whatever the status
    ctx.status = 200;
  },
  '/throws': () => {
    throw new Error('secret detail');
  },
  '/unwritable': (ctx) => void (ctx.body = { n: 1n }), // JSON.stringify throws, in respond()
};

async function start() {
  const chain: string[] = [];
  const app = new DirectApp({ proxy: false, maxIpsCount: 0 }, (path, method) => {
    const answer = method === 'GET' ? ANSWERS[path] : undefined;
    return answer && (async (ctx) => answer(ctx));
  });
  app.silent = true;
  app.use((ctx) => {
    chain.push(ctx.path);
    ctx.set('X-Chain', 'yes');
    ctx.body = { chain: true };
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((ok) => server.once('listening', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, chain };
}

describe('DirectApp', () => {
  it('answers what it claims outside the chain, with the bodies written as Koa writes them', async () => {
    const { url, chain } = await start();
    const json = await fetch(`${url}/json?x=1`); // the path without its query decides
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.headers.get('content-length')).toBe(String(Buffer.byteLength('{"ok":true,"text":"é"}')));
    expect(await json.json()).toEqual({ ok: true, text: 'é' });
    expect(json.headers.get('x-chain')).toBeNull();

    const text = await fetch(`${url}/text`);
    expect(text.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await text.text()).toBe('{"stored":true}');

    const csv = await fetch(`${url}/buffer`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await csv.text()).toBe('a,b\n');

    // A status without a body says itself, as Koa answers it.
    const none = await fetch(`${url}/none`);
    expect(none.status).toBe(202);
    expect(await none.text()).toBe('Accepted');

    const notModified = await fetch(`${url}/not-modified`);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe('"v1"');
    expect(notModified.headers.get('content-type')).toBeNull();

    const empty = await fetch(`${url}/empty`);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-length')).toBe('0');
    expect(await empty.text()).toBe('');

    const stream = await fetch(`${url}/stream`);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toBe('data: 1\n\ndata: 2\n\n');
    expect(chain).toEqual([]);
  });

  it('sends everything it does not claim through Koa’s chain', async () => {
    const { url, chain } = await start();
    const other = await fetch(`${url}/elsewhere`);
    expect(await other.json()).toEqual({ chain: true });
    expect(other.headers.get('x-chain')).toBe('yes');
    // Another method of a claimed path, and a path that differs only in its case, are not claimed.
    await fetch(`${url}/json`, { method: 'POST' });
    await fetch(`${url}/JSON`);
    expect(chain).toEqual(['/elsewhere', '/json', '/JSON']);
  });

  it('answers an error that escapes the direct answer or its writing as Koa does: 500, without its detail', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/throws`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret detail');
    const unwritable = await fetch(`${url}/unwritable`);
    expect(unwritable.status).toBe(500);
    expect(await unwritable.text()).toBe('Internal Server Error');
  });

  it('leaves a URL Node cannot parse to the chain, and stays up', async () => {
    const { url, chain } = await start();
    // An absolute-form request line whose user part is a broken escape: Node's url.parse throws on
    // it. Read outside the chain's promise, that would end the process.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1', () =>
        socket.end('GET http://%E0%A4%A@fail/json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 500 /);
    expect(chain).toEqual([]); // the chain's own ctx.path threw too: Koa answered 500
    expect((await fetch(`${url}/json`)).status).toBe(200);
  });
});
