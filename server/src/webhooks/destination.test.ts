import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../test-support/receiver.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(options: Parameters<typeof startServer>[0] = {}) {
  const s = await startServer(options);
  cleanup.push(() => s.close());
  return s;
}
const ALLOW_LOCAL = { TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' };
const moduleWith = (url: string) => ({ modules: [{ name: 'webhooks', enabled: true, settings: { url } }] });
const ruleWith = (url: string) => ({
  rules: [{ id: 'hook', name: 'Hook', event: 'ticket.created', actions: [{ type: 'webhook', value: url }] }],
});
const log = async (s: TestServer) =>
  (await s.call('GET', '/admin?r=webhook_log')).body.webhook_log as { error: string | null; status_code: number }[];

// Loopback, private, link-local, CGNAT and unspecified addresses in the spellings a URL parser accepts.
const LOCAL_URLS = [
  'http://127.0.0.1:8080/hook',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://localhost:8080/',
  'http://LOCALHOST./',
  'http://admin.localhost/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[0:0:0:0:0:ffff:7f00:1]/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.5/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.1.1/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[fe80::1]/',
  'http://100.64.0.1/',
];

describe('webhook destinations', () => {
  it('refuse local addresses in any spelling when configured, with a 400 naming the field', async () => {
    const s = await server();
    for (const url of LOCAL_URLS) {
      const mod = await s.call('POST', '/admin?r=modules', { json: moduleWith(url) });
      expect(mod.status, url).toBe(400);
      expect(mod.body.error, url).toMatchObject({ code: 'validation_failed', param: 'modules.0.settings.url' });
      const rule = await s.call('POST', '/admin?r=rules', { json: ruleWith(url) });
      expect(rule.status, url).toBe(400);
      expect(rule.body.error, url).toMatchObject({ code: 'validation_failed', param: 'rules.0.actions.0.value' });
    }
    expect((await s.call('POST', '/admin?r=modules', { json: moduleWith(LOCAL_URLS[1]!) })).body.error.message).toMatch(
      /TICKETING_WEBHOOKS_ALLOW_LOCAL/,
    );
    const escalation = await s.call('POST', '/admin?r=escalation', {
      json: {
        escalation: [
          {
            id: 'late',
            after_minutes: 5,
            when: 'unresolved',
            actions: [{ type: 'webhook', value: 'http://10.1.1.1/' }],
          },
        ],
      },
    });
    expect(escalation.body.error.param).toBe('escalation.0.actions.0.value');
    // Nothing was stored, and public destinations are taken.
    expect((await s.call('GET', '/admin?r=rules')).body.rules).toEqual([]);
    expect((await s.call('POST', '/admin?r=rules', { json: ruleWith('https://hooks.example/a') })).status).toBe(200);
    expect((await s.call('POST', '/admin?r=modules', { json: moduleWith('http://8.8.8.8/hook') })).status).toBe(200);
  });

  it('are the operator’s choice with TICKETING_WEBHOOKS_ALLOW_LOCAL=on', async () => {
    const s = await server({ env: ALLOW_LOCAL });
    for (const url of LOCAL_URLS) {
      expect((await s.call('POST', '/admin?r=modules', { json: moduleWith(url) })).status, url).toBe(200);
    }
  });

  it('are checked again when sent: a name resolving to loopback and a literal are refused, nothing reaches them', async () => {
    // Configured while local targets were allowed; the operator has since switched that off.
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    const port = new URL(hook.url).port;
    const first = await startServer({ env: ALLOW_LOCAL });
    await first.call('POST', '/admin?r=modules', { json: moduleWith(`http://localhost:${port}/module`) });
    await first.call('POST', '/admin?r=rules', { json: ruleWith(`http://127.1:${port}/rule`) });
    await first.close({ keepData: true });
    // Removed after the second server has closed (cleanups run last first).
    cleanup.push(() => import('node:fs/promises').then((fs) => fs.rm(first.dataDir, { recursive: true, force: true })));
    const s = await server({ dataDir: first.dataDir, keys: first.keys });
    await createTicket(s);
    await s.running.deps.outbox.idle();
    expect((await log(s)).map((e) => [e.error, e.status_code])).toEqual([
      ['destination not allowed', null],
      ['destination not allowed', null],
    ]);
    expect(hook.received).toHaveLength(0);
  });

  it('log generic errors, never the socket error that would map ports', async () => {
    const closed = await startReceiver();
    const url = `${closed.url}/gone`;
    await closed.close(); // nothing listens on this port any more
    const s = await server({ env: ALLOW_LOCAL });
    await s.call('POST', '/admin?r=modules', { json: moduleWith(url) });
    await createTicket(s);
    await s.running.deps.outbox.idle();
    const [entry] = await log(s);
    expect(entry!.error).toBe('could not connect');
    expect(JSON.stringify(entry)).not.toMatch(/ECONNREFUSED|connect /);
  });

  it('do not follow redirects', async () => {
    const target = await startReceiver();
    cleanup.push(() => target.close());
    const redirect = await startReceiver(() => ({ status: 302, headers: { Location: `${target.url}/inner` } }));
    cleanup.push(() => redirect.close());
    const s = await server({ env: ALLOW_LOCAL });
    await s.call('POST', '/admin?r=modules', { json: moduleWith(`${redirect.url}/outer`) });
    await createTicket(s);
    await s.running.deps.outbox.idle();
    expect((await log(s))[0]).toMatchObject({ status_code: 302, error: 'status 302', ok: false });
    expect(redirect.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });
});
