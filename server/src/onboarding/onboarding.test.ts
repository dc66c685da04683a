import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { startServer, type TestServer } from '../test-support/server.js';
import { startSmtp, type ReceivedMail, type TestSmtp } from '../test-support/smtp.js';

// Invitations and forgotten passwords by mail (issue 30): single-use links mailed to an agent, no
// telling who is an agent, limits on the mails, every other session ended by a reset.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let now = Date.parse('2026-11-27T09:00:00.000Z');
const clock = () => new Date(now);
const PASSWORD = 'a brand new passphrase';

async function setUp(opts: { mail?: boolean } = {}) {
  const smtp = await startSmtp();
  cleanup.push(() => smtp.close());
  const s = await startServer({ clock });
  cleanup.push(() => s.close());
  if (opts.mail !== false) {
    const res = await s.call('POST', '/admin?r=mail', {
      json: { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', port: smtp.port } },
    });
    expect(res.status).toBe(200);
  }
  return { s, smtp };
}

/** The link of a mail to `to`, and its token. */
function linkIn(mail: ReceivedMail, kind: 'invite' | 'reset') {
  const m = new RegExp(`(\\S+)/console/${kind}/([A-Za-z0-9]+)`).exec(mail.text);
  expect(m, mail.text).not.toBeNull();
  return { origin: m![1]!, token: m![2]! };
}

const cookieOf = (res: { headers: Headers }) => res.headers.getSetCookie()[0]?.split(';')[0] ?? '';

async function signIn(s: TestServer, email: string, password: string) {
  return s.call('POST', '/session', { key: null, json: { email, password } });
}

/** Waits until `count` mails are in, then a little longer, and answers all that came. */
async function settledMails(smtp: TestSmtp, count: number) {
  await smtp.waitFor(count);
  await new Promise((ok) => setTimeout(ok, 800));
  return smtp.received;
}

describe('invitations by mail', () => {
  it('mails a single-use link; the invitee chooses a password, is signed in, and the link is spent', async () => {
    const { s, smtp } = await setUp();
    const made = await s.call('POST', '/admin?r=agents', {
      json: { name: 'Grace Hopper', email: 'grace@shop.example', invite: true },
    });
    expect(made.status).toBe(201);
    expect(made.body.agent).toMatchObject({ invited: true, must_change_password: false });
    expect(made.body.password).toBeUndefined();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['grace@shop.example']);
    expect(mail!.subject).toContain('invited');
    const { origin, token } = linkIn(mail!, 'invite');
    expect(origin).toBe(s.url);
    // The token is stored only as its hash.
    expect(JSON.stringify(s.running.deps.configStore.get())).not.toContain(token);

    // Nothing signs in before the invitation is used.
    expect((await signIn(s, 'grace@shop.example', PASSWORD)).status).toBe(401);
    const short = await s.call('POST', '/session/invite', { key: null, json: { token, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('password');

    const used = await s.call('POST', '/session/invite', { key: null, json: { token, password: PASSWORD } });
    expect(used.status).toBe(200);
    expect(used.body.agent).toMatchObject({ email: 'grace@shop.example', role: 'agent' });
    const cookie = cookieOf(used);
    expect(cookie).toMatch(/^ticketing_session=.{20,}/);
    expect((await s.call('GET', '/session', { key: null, headers: { Cookie: cookie } })).status).toBe(200);

    const again = await s.call('POST', '/session/invite', {
      key: null,
      json: { token, password: 'another passphrase' },
    });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('link_invalid');
    expect((await signIn(s, 'grace@shop.example', PASSWORD)).status).toBe(200);
    const agents = await s.call('GET', '/admin?r=agents');
    expect(agents.body.agents.find((a: { email: string }) => a.email === 'grace@shop.example').invited).toBe(false);
  });

  it('is refused without working mail (the one-time password stays for that), and expires after 7 days', async () => {
    const bare = await setUp({ mail: false });
    const refused = await bare.s.call('POST', '/admin?r=agents', {
      json: { name: 'Grace', email: 'grace@shop.example', invite: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', param: 'invite' });
    const oneTime = await bare.s.call('POST', '/admin?r=agents', {
      json: { name: 'Grace', email: 'grace@shop.example', one_time_password: true },
    });
    expect(oneTime.status).toBe(201);
    expect(oneTime.body.password).toEqual(expect.any(String));

    const { s, smtp } = await setUp();
    await s.call('POST', '/admin?r=agents', { json: { name: 'Ada', email: 'ada@shop.example', invite: true } });
    const { token } = linkIn((await smtp.waitFor(1))[0]!, 'invite');
    now += 7 * 24 * 3_600_000 + 60_000;
    const late = await s.call('POST', '/session/invite', { key: null, json: { token, password: PASSWORD } });
    expect(late.status).toBe(403);
    expect(late.body.error.code).toBe('link_invalid');
  });
});

describe('forgotten passwords', () => {
  it('answers 202 alike for an agent, a stranger and an inactive agent; only the active agent gets a mail', async () => {
    const { s, smtp } = await setUp();
    const grace = await signedInAgent(s, { name: 'Grace', email: 'grace@shop.example' });
    await signedInAgent(s, { name: 'Gone', email: 'gone@shop.example', active: false }).catch(() => undefined);
    const answers = [];
    for (const email of ['nobody@shop.example', 'gone@shop.example', 'GRACE@shop.example'])
      answers.push(await s.call('POST', '/session/forgot', { key: null, json: { email } }));
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.text).toBe(answers[0]!.text);
    }
    const mails = await settledMails(smtp, 1);
    expect(mails.map((m) => m.to)).toEqual([['grace@shop.example']]);
    expect(linkIn(mails[0]!, 'reset').origin).toBe(s.url);
    // The agent's session is untouched by the request alone.
    expect((await grace.call('GET', '/session')).status).toBe(200);
  });

  it('resets the password once: every session of the agent ends, the new session has a new id, passkeys go', async () => {
    const { s, smtp } = await setUp();
    const grace = await signedInAgent(s, { name: 'Grace', email: 'grace@shop.example' });
    const other = await signIn(s, 'grace@shop.example', 'correct horse battery');
    await s.running.deps.configStore.update((d) => {
      for (const a of d.agents)
        if (a.email === 'grace@shop.example')
          a.passkeys = [
            { id: 'cred', public_key: 'key', counter: 0, name: 'Old phone', transports: [], created_at: '' },
          ];
    });
    await s.call('POST', '/session/forgot', { key: null, json: { email: 'grace@shop.example' } });
    const { token } = linkIn((await smtp.waitFor(1))[0]!, 'reset');

    // From another site's page: refused, and the link stays good.
    const forged = await s.call('POST', '/session/reset', {
      key: null,
      headers: { Origin: 'https://evil.example' },
      json: { token, password: PASSWORD },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('csrf_failed');

    // The browser brings a session of its own (fixation): it is not the one answered, and it ends.
    const reset = await s.call('POST', '/session/reset', {
      key: null,
      headers: { Cookie: grace.cookie },
      json: { token, password: PASSWORD },
    });
    expect(reset.status).toBe(200);
    const fresh = cookieOf(reset);
    expect(fresh).not.toBe(grace.cookie);
    expect(fresh).not.toBe(cookieOf(other));
    expect((await grace.call('GET', '/session')).status).toBe(401);
    expect((await s.call('GET', '/session', { key: null, headers: { Cookie: cookieOf(other) } })).status).toBe(401);
    expect((await s.call('GET', '/session', { key: null, headers: { Cookie: fresh } })).status).toBe(200);
    expect((await signIn(s, 'grace@shop.example', 'correct horse battery')).status).toBe(401);
    expect((await signIn(s, 'grace@shop.example', PASSWORD)).status).toBe(200);
    const agents = await s.call('GET', '/admin?r=agents');
    expect(agents.body.agents.find((a: { email: string }) => a.email === 'grace@shop.example').passkey_count).toBe(0);

    const again = await s.call('POST', '/session/reset', { key: null, json: { token, password: 'yet another one!' } });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('link_invalid');
    expect(
      (await s.call('POST', '/session/reset', { key: null, json: { token: 'x'.repeat(43), password: PASSWORD } }))
        .status,
    ).toBe(403);
  });

  it('a link holds one hour, and a newer link replaces an older one', async () => {
    const { s, smtp } = await setUp();
    await signedInAgent(s, { name: 'Grace', email: 'grace@shop.example' });
    const ask = () => s.call('POST', '/session/forgot', { key: null, json: { email: 'grace@shop.example' } });
    await ask();
    const first = linkIn((await smtp.waitFor(1))[0]!, 'reset').token;
    await ask();
    const second = linkIn((await smtp.waitFor(2))[1]!, 'reset').token;
    expect(second).not.toBe(first);
    const old = await s.call('POST', '/session/reset', { key: null, json: { token: first, password: PASSWORD } });
    expect(old.status).toBe(403);
    now += 3_600_000 + 1_000;
    const late = await s.call('POST', '/session/reset', { key: null, json: { token: second, password: PASSWORD } });
    expect(late.status).toBe(403);
    expect(late.body.error.code).toBe('link_invalid');
  });

  it('mails at most 3 links per email and acts on at most 20 requests per address an hour', async () => {
    const { s, smtp } = await setUp();
    await signedInAgent(s, { name: 'Grace', email: 'grace@shop.example' });
    await signedInAgent(s, { name: 'Ada', email: 'ada@shop.example' });
    for (let i = 0; i < 5; i++) {
      const res = await s.call('POST', '/session/forgot', { key: null, json: { email: 'grace@shop.example' } });
      expect(res.status).toBe(202);
    }
    expect((await settledMails(smtp, 3)).length).toBe(3);
    // 5 requests so far from this address; 15 more for strangers fill its 20.
    for (let i = 0; i < 15; i++)
      await s.call('POST', '/session/forgot', { key: null, json: { email: `stranger${i}@example.com` } });
    const limited = await s.call('POST', '/session/forgot', { key: null, json: { email: 'ada@shop.example' } });
    expect(limited.status).toBe(202);
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(smtp.received.map((m) => m.to[0])).toEqual(Array(3).fill('grace@shop.example'));
    // An hour on, the address may ask again.
    now += 3_600_000 + 1_000;
    await s.call('POST', '/session/forgot', { key: null, json: { email: 'ada@shop.example' } });
    expect((await smtp.waitFor(4))[3]!.to).toEqual(['ada@shop.example']);
  });

  it('takes as long for an unknown email as for an agent’s', async () => {
    const { s, smtp } = await setUp();
    const emails: string[] = [];
    for (let i = 0; i < 6; i++) emails.push((await signedInAgent(s, { name: `Agent ${i}` })).agent.email);
    const timed = async (email: string) => {
      const t0 = performance.now();
      const res = await s.call('POST', '/session/forgot', { key: null, json: { email } });
      expect(res.status).toBe(202);
      return performance.now() - t0;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < emails.length; i++) {
      unknown.push(await timed(`nobody${i}@shop.example`));
      known.push(await timed(emails[i]!));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    await smtp.waitFor(emails.length); // the links went out (and nothing is written as the server stops)
    console.log(
      `forgot: median ${median(known).toFixed(1)} ms for agents, ${median(unknown).toFixed(1)} ms for strangers`,
    );
    expect(median(known)).toBeLessThan(median(unknown) * 2 + 15);
  });

  it('builds the link from the server’s own address, never from Host or forwarded headers', async () => {
    const { s, smtp } = await setUp();
    await signedInAgent(s, { name: 'Grace', email: 'grace@shop.example' });
    const { port } = new URL(s.url);
    const status = await new Promise<number>((ok, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/session/forgot',
          headers: {
            Host: 'evil.example',
            'X-Forwarded-Host': 'evil.example',
            'X-Forwarded-Proto': 'https',
            'Content-Type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        },
      );
      req.on('error', fail);
      req.end(JSON.stringify({ email: 'grace@shop.example' }));
    });
    expect(status).toBe(202);
    const mail = (await smtp.waitFor(1))[0]!;
    expect(linkIn(mail, 'reset').origin).toBe(s.url);
    expect(mail.text + mail.html).not.toContain('evil.example');
  });
});
