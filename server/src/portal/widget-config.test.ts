import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../keys/keys.js';
import { startServer, type TestServer } from '../test-support/server.js';
import { storedAuditText, storedConfigText } from '../test-support/stored-tickets.js';

let s: TestServer;
let now = new Date('2026-11-23T08:30:00Z'); // Monday 09:30 in Berlin
beforeAll(async () => {
  s = await startServer({ clock: () => now });
});
afterAll(() => s.close());

describe('/widget-config', () => {
  it('answers the design, form, modules, categories and the public key, with defaults', async () => {
    const res = await s.call('GET', '/widget-config', { key: s.keys.pk });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      design: {
        title: 'Support',
        greeting: 'Hi! How can we help?',
        primary_color: '#2563eb',
        position: 'bottom-right',
        theme: 'auto',
        launcher_label: null,
        logo_url: null,
        locale: 'en',
      },
      form: { require_category: false, show_page_url: true, privacy_notice: null, allow_attachments: true },
      modules: { kb: true, uploads: true, rating: true, close_request: true },
      categories: [],
      turnstile: { enabled: false, site_key: null },
      business_hours: { open_now: true, next_open_at: null, timezone: 'UTC' },
      public_key: s.keys.pk,
      mail: false,
      api_version: 'v1',
    });
    expect(res.headers.get('access-control-expose-headers')).toBeNull(); // no Origin sent
  });

  it('follows what /admin writes', async () => {
    await s.call('POST', '/admin?r=design', {
      json: { primary_color: '#ff0000', locale: 'de', launcher_label: 'Hilfe' },
    });
    await s.call('POST', '/admin?r=modules', {
      json: {
        modules: [
          { name: 'kb', enabled: false },
          { name: 'rating', enabled: true },
        ],
      },
    });
    await s.call('POST', '/admin?r=turnstile', {
      json: { enabled: true, site_key: '0x4AAAsite', secret: 'turnstile-secret-value' },
    });
    await s.call('POST', '/admin?r=business_hours', {
      json: { timezone: 'Europe/Berlin', days: { mon: [{ open: '10:00', close: '16:00' }] } },
    });
    const res = await s.call('GET', '/widget-config', { key: s.keys.pk });
    expect(res.body.design).toMatchObject({ primary_color: '#ff0000', locale: 'de', launcher_label: 'Hilfe' });
    expect(res.body.modules).toEqual({ kb: false, uploads: false, rating: true, close_request: false });
    expect(res.body.turnstile).toEqual({ enabled: true, site_key: '0x4AAAsite' });
    expect(res.body.business_hours).toEqual({
      open_now: false,
      next_open_at: '2026-11-23T09:00:00.000Z',
      timezone: 'Europe/Berlin',
    });
    expect(res.text).not.toContain('turnstile-secret-value');
    now = new Date('2026-11-23T10:00:00Z');
    expect((await s.call('GET', '/widget-config', { key: s.keys.pk })).body.business_hours.open_now).toBe(true);
    // The kb module off: customers get 403 module_disabled, support still reads.
    const kb = await s.call('GET', '/kb', { key: s.keys.pk });
    expect(kb.status).toBe(403);
    expect(kb.body.error.code).toBe('module_disabled');
    expect((await s.call('GET', '/kb')).status).toBe(200);
  });

  it('says whether support answers by mail (mail set up and customer_on_reply on), and nothing of the settings', async () => {
    const r = await startServer();
    try {
      const mail = async () => (await r.call('GET', '/widget-config', { key: r.keys.pk })).body.mail;
      expect(await mail()).toBe(false);
      const set = await r.call('POST', '/admin?r=mail', {
        json: { from_address: 'help@shop.example', smtp: { host: 'smtp.shop.example', user: 'relay-user' } },
      });
      expect(set.status).toBe(200);
      const res = await r.call('GET', '/widget-config', { key: r.keys.pk });
      expect(res.body.mail).toBe(true);
      for (const secretish of ['smtp.shop.example', 'help@shop.example', 'relay-user'])
        expect(res.text).not.toContain(secretish);
      expect((await r.call('POST', '/settings', { json: { email_notify: { customer_on_reply: false } } })).status).toBe(
        200,
      );
      expect(await mail()).toBe(false);
    } finally {
      await r.close();
    }
  });

  it('carries the shop’s words per language (design and categories), refusing a language the widget lacks', async () => {
    const r = await startServer();
    try {
      const design = { title: 'Teapot Shop', translations: { fr: { title: 'La théière', greeting: 'Bonjour !' } } };
      expect((await r.call('POST', '/admin?r=design', { json: design })).status).toBe(200);
      const categories = [
        {
          id: 'orders',
          name: 'Orders',
          fields: [{ id: 'order_no', label: 'Order number', type: 'text' }],
          translations: { fr: { name: 'Commandes', fields: { order_no: { label: 'Numéro de commande' } } } },
        },
      ];
      expect((await r.call('POST', '/admin?r=categories', { json: { categories } })).status).toBe(200);
      const res = await r.call('GET', '/widget-config', { key: r.keys.pk });
      expect(res.body.design).toMatchObject(design);
      expect(res.body.categories[0].translations).toEqual(categories[0]!.translations);
      const bad = await r.call('POST', '/admin?r=design', { json: { translations: { pt: { title: 'Loja' } } } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(bad.body.error)).toContain('translations');
    } finally {
      await r.close();
    }
  });

  it('gives a secret key the first public key of its mode', async () => {
    const { stored } = createKey('public', 'test');
    await s.running.deps.keys.add(stored);
    const firstLive = (await s.running.deps.keys.list()).find((k) => k.kind === 'public' && k.mode === 'live');
    expect((await s.call('GET', '/widget-config')).body.public_key).toBe(firstLive!.key);
    expect((await s.call('GET', '/widget-config', { key: s.keys.skTest })).body.public_key).toBe(stored.key);
  });
});

describe('secrets never leave', () => {
  it('finds no canary in any answer or log line', async () => {
    // A bad key on every resource: answered 401 each time, not 429 after the failed-key limit.
    const r = await startServer({ env: { TICKETING_KEY_FAILURES_PER_MINUTE: '1000' } });
    const CANARY = 'CANARY7q3x';
    try {
      const writes: [string, unknown][] = [
        ['mail', { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', user: 'u', pass: `${CANARY}-smtp` } }],
        ['turnstile', { enabled: false, site_key: 'site', secret: `${CANARY}-turnstile` }],
        [
          'modules',
          {
            modules: [
              { name: 'kb', enabled: true },
              {
                name: 'webhooks',
                enabled: true,
                settings: { url: 'https://hooks.example/h', secret: `${CANARY}-webhook-0123` },
              },
            ],
          },
        ],
        [
          'agents',
          {
            name: 'Ada',
            email: 'ada@shop.example',
            password: `${CANARY}-password`,
            two_factor_secret: `${CANARY}-2fa-secret-xyz`,
          },
        ],
      ];
      for (const [res, body] of writes) {
        const w = await r.call('POST', `/admin?r=${res}`, { json: body });
        expect(w.status, res).toBeLessThan(300);
        expect(w.text).not.toContain(CANARY);
      }
      await r.call('POST', '/settings', { json: { smtp: { host: '127.0.0.1', pass: `${CANARY}-settings` } } });

      const answers: string[] = [];
      const keys = [r.keys.pk, r.keys.pkTest, r.keys.sk, r.keys.skTest, null, `sk_live_${'z'.repeat(30)}`];
      const resources = [
        'all',
        'categories',
        'statuses',
        'macros',
        'rules',
        'tags',
        'escalation',
        'modules',
        'design',
        'sla',
        'autoreply',
        'autoclose',
        'blocklists',
        'business_hours',
        'form',
        'mail',
        'turnstile',
        'agents',
        'kb',
        'priorities',
        'audit',
        'webhook_log',
        'outbox',
        'webhook_secrets',
        'nope',
      ];
      for (const key of keys) {
        for (const path of [
          '/settings',
          '/widget-config',
          '/me',
          '/meta',
          '/kb',
          '/list',
          '/ticket?id=tkt_x',
          '/openapi.json',
          '/nope',
        ]) {
          answers.push((await r.call('GET', path, { key })).text);
        }
        for (const res of resources) answers.push((await r.call('GET', `/admin?r=${res}`, { key })).text);
        answers.push((await r.call('POST', '/admin?r=mail', { key, json: { smtp: { port: 'x' } } })).text);
        answers.push((await r.call('POST', '/settings', { key, json: { smtp: { host: 5 } } })).text);
      }
      const config = await storedConfigText(r);
      expect(config).toContain(`${CANARY}-smtp`.replace(`${CANARY}-smtp`, `${CANARY}-settings`)); // stored, as it must be to send mail
      expect(config).not.toContain(`${CANARY}-password`); // hashed
      const audit = await storedAuditText(r);

      for (const text of [...answers, ...r.logs, audit]) expect(text).not.toContain(CANARY);
      for (const text of [...answers, ...r.logs, audit])
        for (const k of [r.keys.sk, r.keys.skTest]) expect(text).not.toContain(k);
      expect(answers.length).toBeGreaterThan(150);
    } finally {
      await r.close();
    }
  });
});
