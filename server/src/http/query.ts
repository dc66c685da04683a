/**
 * A request's query as Koa 3's ctx.query makes it (node_modules/koa/lib/search-params.js: URLSearchParams,
 * a name given more than once becomes a list of its values, in order; names in order of first
 * appearance; own properties even for `__proto__`), without building a URLSearchParams and asking it
 * for each name's values again: that cost several µs on every request with a query (see BENCHMARKS.md).
 *
 * Only a query whose decoding is plain is parsed here: unreserved and sub-delimiter characters, and
 * percent escapes of ASCII. There URLSearchParams and decodeURIComponent agree byte for byte. Anything
 * else (`+`, which URLSearchParams reads as a space, escapes of UTF-8 or broken ones, other
 * characters) goes to URLSearchParams itself, as in Koa.
 */
const PLAIN = /^(?:[A-Za-z0-9\-._~!$'()*,;:@/?=&]|%[0-7][0-9A-Fa-f])*$/;

export type Query = Record<string, string | string[]>;

function add(target: Query, name: string, value: string) {
  // An assignment makes the same own, writable, enumerable property as Koa's defineProperty, and
  // costs less, for every name but `__proto__` (an accessor of Object.prototype).
  if (!Object.hasOwn(target, name)) {
    if (name === '__proto__')
      Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
    else target[name] = value;
  } else {
    const previous = target[name]!;
    if (typeof previous === 'string') target[name] = [previous, value];
    else previous.push(value);
  }
}

export function parseQuery(querystring: string): Query {
  const out: Query = {};
  if (!querystring) return out;
  // A leading '?' (from `??a=1`) is one URLSearchParams drops: Koa's way for it too.
  if (querystring.charCodeAt(0) === 63 || !PLAIN.test(querystring)) {
    const params = new URLSearchParams(querystring);
    for (const [name, value] of params) add(out, name, value);
    return out;
  }
  const decode = (s: string) => (s.includes('%') ? decodeURIComponent(s) : s);
  for (const pair of querystring.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    add(out, decode(eq < 0 ? pair : pair.slice(0, eq)), eq < 0 ? '' : decode(pair.slice(eq + 1)));
  }
  return out;
}
