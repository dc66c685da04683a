import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startReceiver } from '../test-support/receiver.js';
import { freePort, startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { BACKOFF } from './outbox.js';

let now = new Date('2026-11-23T10:00:00Z');
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});

// Webhooks to loopback receivers: allowed explicitly where the server guards local addresses.
const ENV = { TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' };
const SMTP_PASS = 'smtp-pass-canary-0451';
const HOOK_SECRET = 'whsec-canary-0123456789';

async function server(options: { dataDir?: string; keys?: TestServer['keys'] } = {}) {
  const s = await startServer({ clock, env: ENV, ...options });
  cleanup.push(() => s.close());
  return s;
}
const outbox = async (s: TestServer) => (await s.call('GET', '/admin?r=outbox')).body.outbox as Record<string, any>[];

describe('test mode', () => {
  it('sends no mail and calls no webhook; the outbox records what would have gone, without bodies or secrets', async () => {
    const s = await server();
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port, user: 'shop', pass: SMTP_PASS, allow_plain_auth: true },
        email_notify: {
          customer_on_create: true,
          customer_on_reply: true,
          agents_on_create: true,
          agent_emails: ['desk@shop.example'],
        },
      },
    });
    await s.call('POST', '/admin?r=modules', {
      json: {
        modules: [
          {
            name: 'webhooks',
            enabled: true,
            settings: { url: `${hook.url}/module`, secret: HOOK_SECRET, events: ['ticket.created', 'ticket.replied'] },
          },
        ],
      },
    });
    await s.call('POST', '/admin?r=rules', {
      json: {
        rules: [
          {
            id: 'all',
            name: 'Everything',
            event: 'ticket.created',
            actions: [
              { type: 'notify', value: 'boss@shop.example' },
              { type: 'webhook', value: `${hook.url}/rule` },
            ],
          },
        ],
      },
    });

    const staging = await createTicket(
      s,
      { subject: 'staging only', message: 'BODY-TEXT-NEVER-LISTED' },
      s.keys.pkTest,
    );
    const reply = await s.call('POST', '/reply', {
      key: s.keys.skTest,
      json: { ticket_id: staging.id, message: 'support in staging' },
    });
    expect(reply.status).toBe(201);
    // A live ticket afterwards: once its deliveries are through, the test ones would have been too.
    const live = await createTicket(s, { subject: 'live marker' });
    await smtp.waitFor(3); // confirmation, the agents, the rule's notify
    await eventually(() => hook.received.length >= 2, 5000, 'the live webhooks'); // the module's and the rule's
    await s.running.deps.outbox.idle();
    expect(await s.running.deps.outbox.pending()).toEqual([]);

    expect(smtp.received.map((m) => m.subject).sort()).toEqual([
      '[#1001] New ticket: live marker',
      '[#1001] We received your request: live marker',
      '[rule all] [#1001] live marker',
    ]);
    expect(hook.received).toHaveLength(2);
    for (const r of hook.received) expect(JSON.parse(r.body).data.ticket.id).toBe(live.id);

    const res = await s.call('GET', '/admin?r=outbox');
    const test = (res.body.outbox as Record<string, any>[]).filter((e) => e.mode === 'test');
    expect(test.every((e) => e.state === 'suppressed_test' && e.attempts === 0)).toBe(true);
    expect(
      test
        .filter((e) => e.kind === 'mail')
        .map((e) => [e.to.join(), e.subject])
        .sort(),
    ).toEqual([
      ['ada@example.com', 'Re: [#1001] staging only'],
      ['ada@example.com', '[#1001] We received your request: staging only'],
      ['boss@shop.example', '[rule all] [#1001] staging only'],
      ['desk@shop.example', '[#1001] New ticket: staging only'],
    ]);
    expect(
      test
        .filter((e) => e.kind === 'webhook')
        .map((e) => [e.url, e.event])
        .sort(),
    ).toEqual([
      [`${hook.url}/module`, 'ticket.created'],
      [`${hook.url}/module`, 'ticket.replied'],
      [`${hook.url}/rule`, 'ticket.created'],
    ]);
    for (const leak of ['BODY-TEXT-NEVER-LISTED', 'support in staging', SMTP_PASS, HOOK_SECRET, '"html"', '"body"'])
      expect(res.text).not.toContain(leak);
    // Test mode has no say in what live mail goes out: test keys read, never write, the outbox.
    expect((await s.call('GET', '/admin?r=outbox', { key: s.keys.skTest })).status).toBe(403);
    expect((await s.call('POST', '/admin?r=outbox', { json: {} })).status).toBe(405);
  });
});

describe('/admin?r=outbox', () => {
  it('lists a queued mail with its attempts and error, and the same mail once it is given up, across a restart', async () => {
    const port = await freePort(); // nothing listens: every attempt fails
    const s = await server();
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port, user: 'shop', pass: SMTP_PASS, allow_plain_auth: true },
        email_notify: { customer_on_create: true, agents_on_create: false },
      },
    });
    await createTicket(s, { subject: 'never arrives', message: 'BODY-TEXT-NEVER-LISTED' });
    await s.running.deps.outbox.idle(); // the first attempt failed
    const [queued] = await outbox(s);
    expect(queued).toEqual({
      id: expect.stringMatching(/^evt_/),
      kind: 'mail',
      state: 'queued',
      mode: 'live',
      to: ['ada@example.com'],
      subject: '[#1001] We received your request: never arrives',
      url: null,
      event: null,
      attempts: 1,
      next_attempt_at: new Date(now.getTime() + BACKOFF.mail[0]! * 1000).toISOString(),
      last_error: expect.stringMatching(/ECONNREFUSED/),
      created_at: now.toISOString(),
      at: now.toISOString(),
    });

    for (let i = 0; i < BACKOFF.mail.length && (await s.running.deps.outbox.pending()).length; i++) {
      now = new Date(now.getTime() + 5 * 3_600_000);
      await s.running.scheduler.tick();
    }
    const [failed] = await outbox(s);
    expect(failed).toMatchObject({
      id: queued!.id,
      state: 'failed',
      to: ['ada@example.com'],
      attempts: BACKOFF.mail.length + 1,
      next_attempt_at: null,
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(s.logs.some((l) => l.includes('outbox: giving up'))).toBe(true);

    await s.close({ keepData: true });
    const again = await server({ dataDir: s.dataDir, keys: s.keys });
    const after = await outbox(again);
    expect(after).toEqual([failed]);
    expect(JSON.stringify(after)).not.toContain('BODY-TEXT-NEVER-LISTED');
  });
});
