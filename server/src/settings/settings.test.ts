import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../test-support/smtp.js';
import { createTicket, startServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}
async function smtpServer(port = 0, host?: string) {
  const smtp = await startSmtp(port, host ? { host } : {});
  cleanup.push(() => smtp.close());
  return smtp;
}

const PASSWORD = 'smtp-password-canary-4711';
const hasPassword = (smtp: TestSmtp) => smtp.auths.some((a) => a.password === PASSWORD);

describe('/settings writes', () => {
  it('need a live secret key: a test key reads the live settings but cannot change them', async () => {
    const s = await server();
    const before = (await s.call('GET', '/settings', { key: s.keys.skTest })).body;
    const writes = [
      { smtp: { host: 'attacker.example', port: 25 } },
      { email_notify: { agents_on_create: true, agent_emails: ['attacker@evil.example'] } },
      { autoreply: { enabled: true, message: 'Reset your password at https://evil.example' } },
      { business_hours: { timezone: 'Europe/Berlin' } },
    ];
    for (const json of writes) {
      const res = await s.call('POST', '/settings', { key: s.keys.skTest, json });
      expect(res.status, Object.keys(json)[0]).toBe(403);
      expect(res.body.error.code).toBe('live_secret_key_required');
      for (const key of [s.keys.pk, s.keys.pkTest]) {
        expect((await s.call('POST', '/settings', { key, json })).body.error.code).toBe('live_secret_key_required');
      }
    }
    expect((await s.call('GET', '/settings', { key: s.keys.skTest })).body).toEqual(before);
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(audit.filter((e: { action: string }) => e.action === 'settings.update')).toEqual([]);
  });
});

describe('a stored SMTP password', () => {
  it.each([
    ['/settings', (smtp: object) => ({ smtp })],
    ['/admin?r=mail', (smtp: object) => ({ from_address: 'help@shop.example', smtp })],
  ])('never reaches a new host through %s unless it is sent with it', async (path, body) => {
    const s = await server();
    const shop = await smtpServer();
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: shop.port, user: 'shop', pass: PASSWORD, allow_plain_auth: true },
        email_notify: { customer_on_create: true },
      },
    });
    await createTicket(s);
    await shop.waitFor(1);
    expect(hasPassword(shop)).toBe(true); // the password is in use

    // The attack: the same port on another address (only the host changes), no password sent.
    const attacker = await smtpServer(shop.port, '127.0.0.2');
    const moved = await s.call('POST', path, {
      json: body({ host: '127.0.0.2', port: shop.port, user: 'shop', allow_plain_auth: true }),
    });
    expect(moved.status).toBe(200);
    expect(JSON.stringify(moved.body)).toContain('"pass_set":false');
    await createTicket(s, { email: 'second@example.com' });
    const [mail] = await attacker.waitFor(1);
    expect(mail!.to).toEqual(['second@example.com']); // the mail went there ...
    expect(hasPassword(attacker)).toBe(false); // ... the password did not
    expect(attacker.auths).toEqual([]); // no password, no AUTH at all

    // A password sent with the new host is used there.
    await s.call('POST', path, {
      json: body({
        host: '127.0.0.2',
        port: shop.port,
        user: 'shop',
        pass: 'the-new-password',
        allow_plain_auth: true,
      }),
    });
    await createTicket(s, { email: 'third@example.com' });
    await attacker.waitFor(2);
    expect(attacker.auths.map((a) => a.password)).toEqual(['the-new-password']);
    expect(shop.received).toHaveLength(1);
  });
});
