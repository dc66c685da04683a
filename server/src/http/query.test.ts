import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseQuery } from './query.js';

// Koa 3's own parser behind ctx.query: parseQuery must answer exactly what it does.
const koa = createRequire(import.meta.url)('koa/lib/search-params.js') as {
  parse(querystring: string): Record<string, unknown>;
};
/** Names, values and their order, and whether the object's prototype is the plain one. */
const shape = (q: Record<string, unknown>) => ({
  entries: Object.entries(q),
  plain: Object.getPrototypeOf(q) === Object.prototype,
});

describe('parseQuery, the query as ctx.query gives it', () => {
  it.each([
    '',
    'id=tkt_0123456789abcdefghij',
    'id=tkt_0123456789abcdefghij&email=someone%40example.com',
    'a=1&a=2&a=3',
    'a=1&b=2&a=3',
    'a',
    'a=',
    '=x',
    '&&a=1&&',
    'a=b=c',
    '__proto__=x',
    '__proto__=x&__proto__=y',
    'constructor=1&hasOwnProperty=2&hasOwnProperty=3',
    'a=%41%42&%61=1',
    'a=%7e%2B%25%2541',
    'a=1+2',
    'a=%C3%A9',
    'a=%zz&b=%4',
    'a=é',
    'a=%00%1f',
    'x=1;y=2&z=?/:@',
    '?id=tkt_x', // GET /v1/ticket??id=…: URLSearchParams drops one leading '?'
    '?',
    '?=1',
    '??a=1',
  ])('%j', (querystring) => {
    expect(shape(parseQuery(querystring))).toEqual(shape(koa.parse(querystring)));
  });

  it('agrees with Koa on many generated queries', () => {
    const pieces = [
      'a',
      'b',
      '=',
      '&',
      '%',
      '4',
      '1',
      'C',
      '3',
      'A',
      '+',
      '_',
      '.',
      '~',
      'é',
      '%41',
      '%C3%A9',
      '%2',
      '__proto__',
      ';',
    ];
    let seed = 1;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) {
      let querystring = '';
      for (let n = Math.floor(random() * 12); n > 0; n--) querystring += pieces[Math.floor(random() * pieces.length)];
      expect(shape(parseQuery(querystring)), querystring).toEqual(shape(koa.parse(querystring)));
    }
  });
});
