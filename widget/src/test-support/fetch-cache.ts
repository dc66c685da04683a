/**
 * One step of the Fetch standard that happy-dom leaves out. A request that carries its own
 * If-None-Match gets the cache mode "no-store", and for that mode the browser adds
 * `Cache-Control: no-cache` (https://fetch.spec.whatwg.org/#http-network-or-cache-fetch). Without
 * it happy-dom keeps such requests in its HTTP cache and throws "ResponseCache: Cached response not
 * found" (an unhandled error that fails the run) when the server rightly answers 304 to a response
 * it never cached. Adding the header here gives the widget the browser's behaviour: a 304 reaches it.
 */
const browserFetch = globalThis.fetch;
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (headers.has('If-None-Match') && !headers.has('Cache-Control')) {
    headers.set('Cache-Control', 'no-cache');
    return browserFetch(input, { ...init, headers });
  }
  return browserFetch(input, init);
};
