import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { COULD_NOT_CONNECT, timedOut } from '../model/index.js';
import { isPublicAddress } from './addresses.js';

/** What a delivery attempt came to: the receiver's status, or one of a few generic errors. */
export type Outcome = { status: number } | { error: string };

// The delivery log says no more than this about a failure (model/connection-failure.ts): a raw socket
// error would let whoever sets webhook URLs map the network the server is in.
const NOT_ALLOWED = 'destination not allowed';

class DestinationNotAllowed extends Error {}

/**
 * dns.lookup that refuses a name when any of its addresses is not public. It runs inside the
 * connection (net.connect calls it), and the socket connects to the very addresses it checked: there
 * is no second resolution between the check and the connection for a rebinding name to exploit.
 */
const publicOnlyLookup = ((hostname: string, options: LookupOptions, callback: LookupCallback) => {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses) => {
    if (err) return callback(err, '', 0);
    if (!addresses.length || addresses.some((a) => !isPublicAddress(a.address))) {
      return callback(new DestinationNotAllowed(hostname), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}) as LookupFunction;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;

/**
 * POSTs one webhook body. Unless `allowLocal`, the destination must be a public address: an IP
 * literal is checked here, a name as it is resolved for the connection. Redirects are not followed
 * (a 3xx is the answer), and the whole exchange up to the status line has `timeoutMs`.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowLocal: boolean; timeoutMs: number },
): Promise<Outcome> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ error: COULD_NOT_CONNECT });
  }
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowLocal && isIP(host) && !isPublicAddress(host)) return Promise.resolve({ error: NOT_ALLOWED });
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let req: ReturnType<typeof send>;
    try {
      req = send(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
          // A connection of its own each time: a pooled socket would skip the lookup above.
          agent: false,
          ...(opts.allowLocal ? {} : { lookup: publicOnlyLookup }),
          signal: AbortSignal.timeout(opts.timeoutMs),
        },
        (res) => {
          res.resume(); // the answer's body is not used
          resolve({ status: res.statusCode ?? 0 });
        },
      );
    } catch {
      return resolve({ error: COULD_NOT_CONNECT }); // a URL node:http will not take
    }
    req.on('error', (err) => {
      if (err instanceof DestinationNotAllowed) resolve({ error: NOT_ALLOWED });
      else if (err.name === 'AbortError') resolve({ error: timedOut(opts.timeoutMs / 1000) });
      else resolve({ error: COULD_NOT_CONNECT });
    });
    req.end(body);
  });
}
