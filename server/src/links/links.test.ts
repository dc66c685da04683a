import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../test-support/smtp.js';
import { startServer, ticketInput, type TestServer } from '../test-support/server.js';

let now = new Date('2026-11-23T10:00:00Z');
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});

async function setup(): Promise<{ s: TestServer; smtp: TestSmtp }> {
  const s = await startServer({ clock, env: { TICKETING_PUBLIC_URL: 'https://support.shop.example' } });
  cleanup.push(() => s.close());
  const smtp = await startSmtp();
  cleanup.push(() => smtp.close());
  await s.call('POST', '/admin?r=mail', {
    json: {
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
      email_notify: { customer_on_create: true, customer_on_reply: true },
    },
  });
  return { s, smtp };
}
const LINK = /https:\/\/support\.shop\.example\/t\/([A-Za-z0-9._-]+)/;
const tokenIn = (text: string) => LINK.exec(text)?.[1];
const open = (s: TestServer, token: string, key = s.keys.pk) =>
  s.call('GET', `/link?token=${encodeURIComponent(token)}`, { key });

describe('links in customer mails', () => {
  it('open their ticket, and only it, for 30 days', async () => {
    const { s, smtp } = await setup();
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      headers: { 'Accept-Language': 'de' },
      json: ticketInput({ email: 'Ada@Example.com' }),
    });
    const id = res.body.id as string;
    const [mail] = await smtp.waitFor(1);
    expect(mail!.text).toContain('Ihre Anfrage ansehen: https://support.shop.example/t/');
    expect(mail!.html).toContain('href="https://support.shop.example/t/');
    const token = tokenIn(mail!.text)!;
    expect(token).not.toContain('example.com'); // the email is not in the link
    const opened = await open(s, token);
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ ticket_id: id, email: 'Ada@Example.com' });
    expect(opened.headers.get('cache-control')).toBe('no-store');
    // The email it hands out proves the ticket as usual.
    expect((await s.call('GET', `/ticket?id=${id}&email=Ada@Example.com`, { key: s.keys.pk })).status).toBe(200);

    // Another ticket's id in the same token, another mode, a changed signature or expiry: refused alike.
    const other = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ email: 'bob@example.com' }) });
    const [mode, , exp, version, sig] = token.split('.');
    const forged = [
      [mode, other.body.id, exp, version, sig].join('.'),
      [mode, id, String(Number(exp) + 86_400 * 365), version, sig].join('.'),
      [mode, id, exp, version, `${sig!.slice(0, -1)}${sig!.endsWith('A') ? 'B' : 'A'}`].join('.'),
      `x${token}`,
      '',
    ];
    for (const f of forged) {
      const r = await open(s, f);
      expect(r.status, f).toBe(f ? 403 : 400);
      expect(r.text).not.toContain('bob@example.com');
    }
    expect((await open(s, token, s.keys.pkTest)).body.error.code).toBe('link_invalid');

    now = new Date(now.getTime() + 29 * 86_400_000);
    expect((await open(s, token)).status).toBe(200);
    now = new Date(now.getTime() + 2 * 86_400_000);
    const expired = await open(s, token);
    expect(expired.status).toBe(403);
    expect(expired.body.error.code).toBe('link_invalid');
  });

  it('stop working when support revokes them; the next mail carries a new link', async () => {
    const { s, smtp } = await setup();
    const created = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    const id = created.body.id as string;
    const first = tokenIn((await smtp.waitFor(1))[0]!.text)!;
    expect((await open(s, first)).status).toBe(200);
    expect((await s.call('POST', '/revoke-links', { key: s.keys.pk, json: { ticket_id: id } })).status).toBe(403);
    expect((await s.call('POST', '/revoke-links', { json: { ticket_id: 'tkt_AAAAAAAAAAAAAAAAAAAA' } })).status).toBe(
      404,
    );
    const revoked = await s.call('POST', '/revoke-links', { json: { ticket_id: id } });
    expect(revoked.body).toEqual({ ticket_id: id, revoked: true });
    expect((await open(s, first)).body.error.code).toBe('link_invalid');
    // The ticket itself is unchanged for everyone else.
    const full = await s.call('GET', `/ticket?id=${id}`);
    expect(full.body).not.toHaveProperty('link_version');
    await s.call('POST', '/reply', { json: { ticket_id: id, message: 'Here is a new link.' } });
    const second = tokenIn((await smtp.waitFor(2))[1]!.text)!;
    expect(second).not.toBe(first);
    expect((await open(s, second)).status).toBe(200);
  });

  it('land on a page of this server that opens the widget on the ticket, with the token kept out of referrers and caches', async () => {
    const { s, smtp } = await setup();
    await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    const token = tokenIn((await smtp.waitFor(1))[0]!.text)!;
    const page = await fetch(`${s.url}/t/${token}`, { headers: { 'Accept-Language': 'fr' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // A live public key of this server, which works for the widget.
    const key = /data-key="(pk_live_[A-Za-z0-9]+)"/.exec(html)?.[1];
    expect((await s.call('GET', '/me', { key: key! })).body.key.kind).toBe('public');
    expect(html).toContain(`data-link="${token}"`);
    expect(html).toContain('data-locale="fr"');
    expect(html).toContain('src="/widget.js"');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const bad of ['nope', `${token}"><script>alert(1)</script>`, '']) {
      const r = await fetch(`${s.url}/t/${encodeURIComponent(bad)}`);
      expect(r.status).toBe(404);
      expect(await r.text()).not.toContain('<script');
    }
  });

  it('keep their token out of the access log, and a broken encoding of one is a 404 in the error shape, not a 500', async () => {
    const { s, smtp } = await setup();
    await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
    const token = tokenIn((await smtp.waitFor(1))[0]!.text)!;
    expect((await fetch(`${s.url}/t/${token}`)).status).toBe(200);
    const [secret] = token.split('.').slice(-1); // the signature: what makes the link work
    const line = s.logs.find((l) => l.includes('"msg":"request"') && l.includes('"/t/'));
    expect(JSON.parse(line!)).toMatchObject({ method: 'GET', path: '/t/[token]', status: 200 });
    expect(s.logs.join('\n')).not.toContain(secret);
    expect(s.logs.join('\n')).not.toContain(token);

    const logged = s.logs.length;
    const broken = await fetch(`${s.url}/t/%E0%A4%A`);
    expect(broken.status).toBe(404);
    expect(await broken.json()).toEqual({ error: { code: 'not_found', message: 'This link is not valid.' } });
    const after = s.logs.slice(logged).map((l) => JSON.parse(l) as { level: number });
    expect(after.filter((l) => l.level >= 50)).toEqual([]); // nothing logged as an error
  });
});
