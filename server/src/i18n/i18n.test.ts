import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, ticketInput, type TestServer } from '../test-support/server.js';
import { negotiate } from './locales.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function server(): Promise<TestServer> {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}

describe('negotiate', () => {
  it('picks the best of en, de, fr, es, ar by weight and language', () => {
    expect(negotiate('de-AT,de;q=0.9,en;q=0.5')).toBe('de');
    expect(negotiate('pt-BR, fr-CA;q=0.8, en;q=0.7')).toBe('fr');
    expect(negotiate('en;q=0.1, es;q=0.9')).toBe('es');
    expect(negotiate('ar-EG')).toBe('ar');
    expect(negotiate('de;q=0, fr')).toBe('fr');
    expect(negotiate('pt, ja')).toBeUndefined();
    expect(negotiate('')).toBeUndefined();
    expect(negotiate(undefined)).toBeUndefined();
  });
});

describe('error messages for customers', () => {
  it('come in the language of Accept-Language, with the same codes, params and status', async () => {
    const s = await server();
    const t = await createTicket(s);
    const cases: [string, string, RegExp][] = [
      ['de', 'Diese Anfrage wurde nicht gefunden.', /^de$/],
      ['fr-FR,fr;q=0.9', 'Cette demande est introuvable.', /^fr$/],
      ['es', 'No se encontró esta consulta.', /^es$/],
      ['ar', 'لم يتم العثور على هذا الطلب.', /^ar$/],
    ];
    for (const [lang, text, header] of cases) {
      const res = await s.call('GET', `/ticket?id=${t.id}&email=someone.else@example.com`, {
        key: s.keys.pk,
        headers: { 'Accept-Language': lang },
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'ticket_not_found', message: text });
      expect(res.headers.get('content-language')).toMatch(header);
      expect(res.headers.get('vary')).toContain('Accept-Language');
    }
    // English, or a language we do not have: English.
    for (const lang of ['en-GB', 'pt-BR', undefined]) {
      const res = await s.call('GET', `/ticket?id=${t.id}&email=x@example.com`, {
        key: s.keys.pk,
        headers: lang ? { 'Accept-Language': lang } : {},
      });
      expect(res.body.error.message).toBe('No such ticket.');
    }
  });

  it('name each invalid field in the customer’s language', async () => {
    const s = await server();
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      headers: { 'Accept-Language': 'de' },
      json: { name: 'Ada', email: 'not-an-email', subject: 'x'.repeat(301), message: '' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const byParam = Object.fromEntries(
      res.body.error.details.map((d: { param: string; message: string }) => [d.param, d.message]),
    );
    expect(byParam).toMatchObject({
      email: 'ist keine gültige E-Mail-Adresse',
      subject: 'ist zu lang (höchstens 300 Zeichen)',
    });
    expect(byParam.message).toBeTruthy();
    expect(res.body.error.message).toBe(`${res.body.error.param}: ${byParam[res.body.error.param]}`);
    expect(res.text).not.toMatch(/Invalid|Too big/);
  });

  it('stay English for support: a secret key is not a customer', async () => {
    const s = await server();
    const res = await s.call('GET', '/ticket?id=tkt_AAAAAAAAAAAAAAAAAAAA', { headers: { 'Accept-Language': 'de' } });
    expect(res.body.error.message).toBe('No such ticket.');
    expect(res.headers.get('content-language')).toBeNull();
  });
});

describe('customer mails', () => {
  it('are written in the language the ticket was filed in; support’s mails and the ticket itself are unchanged', async () => {
    const s = await server();
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
        email_notify: { customer_on_create: true, customer_on_reply: true },
      },
    });
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      headers: { 'Accept-Language': 'fr-CH, fr;q=0.9, en;q=0.5' },
      json: ticketInput({ name: 'Amélie', email: 'amelie@example.com', subject: 'Théière cassée' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('locale'); // kept with the ticket, not shown
    const id = res.body.id as string;
    const [confirmation] = await smtp.waitFor(1);
    expect(confirmation!.subject).toBe('[#1001] Nous avons bien reçu votre demande : Théière cassée');
    expect(confirmation!.text).toContain('Bonjour Amélie,');
    expect(confirmation!.text).toContain('Votre numéro de demande est #1001');
    await s.call('POST', '/reply', { json: { ticket_id: id, message: 'Une nouvelle arrive.' } });
    const mails = await smtp.waitFor(2);
    expect(mails[1]!.text).toContain('L’assistance a répondu à votre demande #1001 :');
    expect(mails[1]!.text).toContain('Une nouvelle arrive.');
    const full = await s.call('GET', `/ticket?id=${id}`);
    expect(full.body).not.toHaveProperty('locale');

    // Without Accept-Language (or with support's key): English, as before.
    await createTicket(s, { email: 'ada@example.com' });
    const english = await smtp.waitFor(3);
    expect(english[2]!.subject).toBe('[#1002] We received your request: My order has not arrived');
  });
});
