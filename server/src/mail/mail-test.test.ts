import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startSmtp } from '../test-support/smtp.js';
import { startServer, type TestServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}

const saveSmtp = async (s: TestServer, smtp: Record<string, unknown>) =>
  expect(
    (
      await s.call('POST', '/admin?r=mail', {
        json: { from_name: 'Shop Support', from_address: 'help@shop.example', smtp },
      })
    ).status,
  ).toBe(200);

describe('POST /admin/mail-test', () => {
  it('sends one mail through the stored SMTP settings and reports the server’s answer', async () => {
    const s = await server();
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    // A relay on this host without STARTTLS: plain-text AUTH allowed for it (plain-auth.test.ts: not by default).
    await saveSmtp(s, {
      host: '127.0.0.1',
      port: smtp.port,
      user: 'shop',
      pass: 'relay-password',
      allow_plain_auth: true,
    });
    const res = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sent: true,
      response: expect.stringMatching(/^250 /),
      error: null,
      duration_ms: expect.any(Number),
    });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['owner@shop.example']);
    expect(mail!.from).toBe('help@shop.example');
    expect(mail!.subject).toBe('Test mail from Shop Support');
    expect(mail!.autoSubmitted).toBe('auto-generated');
    // The stored password went along: the saved settings, not something the request sent.
    expect(smtp.auths).toEqual([{ method: 'PLAIN', username: 'shop', password: 'relay-password' }]);
    const audit = (await s.call('GET', '/admin?r=audit&limit=1')).body.audit[0];
    expect(audit).toMatchObject({ action: 'mail.test', target: 'owner@shop.example', details: { sent: true } });
  });

  // What a port scanner would learn: the address, the port, an errno, a banner.
  const revealing = (text: string, port: number) => [
    ...['127.0.0.1', String(port), 'ECONNREFUSED', 'ETIMEDOUT', 'ESOCKET', 'Greeting', 'SSH-'].filter((w) =>
      text.includes(w),
    ),
    ...(/\n|\bat .*\.js|node_modules/.test(text) ? ['a stack'] : []),
  ];

  it('answers a closed port with what to check, without the address, the port or the errno', async () => {
    const s = await server();
    const port = await freePort();
    await saveSmtp(s, { host: '127.0.0.1', port });
    const res = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: false, response: null });
    expect(res.body.error).toMatch(/^could not connect to the SMTP server: check smtp\.host and smtp\.port/);
    expect(revealing(res.text, port)).toEqual([]);
  });

  it('answers a port that never greets (another service) with what to check, and nothing it printed', async () => {
    const s = await server();
    // Something listening that is no SMTP server: it accepts the connection and says nothing.
    const silent = createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    cleanup.push(() => new Promise((ok) => void silent.close(() => ok())));
    const sockets: Socket[] = [];
    silent.on('connection', (c) => sockets.push(c));
    cleanup.push(async () => void sockets.forEach((c) => c.destroy()));
    const { port } = silent.address() as AddressInfo;
    await saveSmtp(s, { host: '127.0.0.1', port });
    // The greeting's timeout shortened from 10 s to 2 (mailer.ts), for this test only: it waits it out.
    process.env.TICKETING_TEST_SMTP_GREETING_SECONDS = '2';
    cleanup.push(async () => void delete process.env.TICKETING_TEST_SMTP_GREETING_SECONDS);
    const began = performance.now();
    const res = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(performance.now() - began).toBeGreaterThanOrEqual(1900);
    expect(res.body).toMatchObject({ sent: false, response: null });
    expect(res.body.error).toMatch(/^timeout after 2 s: the SMTP server did not answer; check smtp\.host, smtp\.port/);
    expect(revealing(res.text, port)).toEqual([]);
    // One that prints another protocol's banner: that banner is not passed on either.
    const ssh = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('SSH-2.0-OpenSSH_9.6 internal-db-host\r\n');
    });
    await new Promise<void>((ok) => ssh.listen(0, '127.0.0.1', ok));
    cleanup.push(() => new Promise((ok) => void ssh.close(() => ok())));
    const sshPort = (ssh.address() as AddressInfo).port;
    await saveSmtp(s, { host: '127.0.0.1', port: sshPort });
    const banner = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(banner.body).toMatchObject({ sent: false, response: null });
    expect(banner.text).not.toContain('internal-db-host');
    expect(revealing(banner.text, sshPort)).toEqual([]);
  }, 30_000);

  it('refuses a relay whose certificate does not verify, and says why', async () => {
    const s = await server();
    const smtp = await startSmtp(0, { starttls: true });
    cleanup.push(() => smtp.close());
    await saveSmtp(s, { host: '127.0.0.1', port: smtp.port, user: 'shop', pass: 'relay-password' });
    const res = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(res.body.sent).toBe(false);
    expect(res.body.error).toMatch(/certificate/i);
    expect(smtp.received).toEqual([]);
    expect(smtp.auths).toEqual([]); // the password never went to it
  });

  it('says so when mail is not configured, checks the address, and is for admins only', async () => {
    const s = await server();
    const res = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(res.body).toMatchObject({ sent: false, error: expect.stringContaining('not configured') });
    const bad = await s.call('POST', '/admin/mail-test', { json: { to: 'not an address' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('to');
    expect((await s.call('POST', '/admin/mail-test', { key: s.keys.pk, json: { to: 'a@b.example' } })).status).toBe(
      403,
    );
    expect((await s.call('POST', '/admin/mail-test', { key: s.keys.skTest, json: { to: 'a@b.example' } })).status).toBe(
      403,
    );
  });
});
