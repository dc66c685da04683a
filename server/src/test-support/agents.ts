import type { CallOptions, TestServer } from './server.js';

const AGENT_PASSWORD = 'correct horse battery';

/** An agent made in /admin with the secret key, signed in by POST /v1/session as the console does. */
export interface SignedInAgent {
  agent: { id: string; name: string; email: string; role: string };
  cookie: string;
  csrf: string;
  /** A call with the session's cookie and CSRF token (and no key), as the console makes it. */
  call: TestServer['call'];
}

let seq = 0;
export async function signedInAgent(s: TestServer, over: Record<string, unknown> = {}): Promise<SignedInAgent> {
  seq++;
  const made = await s.call('POST', '/admin?r=agents', {
    json: { name: `Agent ${seq}`, email: `agent${seq}@shop.example`, password: AGENT_PASSWORD, ...over },
  });
  if (made.status !== 201) throw new Error(`making an agent failed: ${made.status} ${made.text}`);
  const agent = made.body.agent as SignedInAgent['agent'];
  const res = await s.call('POST', '/session', { key: null, json: { email: agent.email, password: AGENT_PASSWORD } });
  if (res.status !== 200) throw new Error(`signing in failed: ${res.status} ${res.text}`);
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = res.body.csrf_token as string;
  const call = (method: string, path: string, opts: CallOptions = {}) =>
    s.call(method, path, { ...opts, key: null, headers: { Cookie: cookie, 'X-CSRF-Token': csrf, ...opts.headers } });
  return { agent, cookie, csrf, call: call as TestServer['call'] };
}
