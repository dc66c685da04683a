import { storedConfigText } from '../test-support/stored-tickets.js';
import { scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atFullPasswordCost } from '../test-support/password-cost.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const get = (r: string, key = s.keys.sk) => s.call('GET', `/admin?r=${r}`, { key });
const post = (r: string, json: unknown, key = s.keys.sk) => s.call('POST', `/admin?r=${r}`, { key, json });

interface Case {
  r: string;
  /** Part of the default value, as a fresh install reads it. */
  defaults: unknown;
  valid: unknown;
  /** What a read gives back after `valid` (defaults for omitted fields filled in). */
  readBack: unknown;
  invalid: unknown;
  /** Params that `details` must name for `invalid`. */
  invalidParams: string[];
}

const CASES: Case[] = [
  {
    r: 'categories',
    defaults: [],
    valid: {
      categories: [
        {
          id: 'billing',
          name: 'Billing',
          fields: [
            { id: 'invoice', label: 'Invoice', type: 'text' },
            { id: 'plan', label: 'Plan', type: 'select', options: ['a', 'b'] },
          ],
        },
      ],
    },
    readBack: [
      {
        id: 'billing',
        name: 'Billing',
        fields: [
          { id: 'invoice', label: 'Invoice', type: 'text', required: false },
          { id: 'plan', label: 'Plan', type: 'select', required: false, options: ['a', 'b'] },
        ],
      },
    ],
    invalid: {
      categories: [
        {
          id: 'Bad Id',
          name: '',
          fields: [
            { id: 'x', label: 'X', type: 'select' },
            { id: 'y', label: 'Y', type: 'colour' },
          ],
        },
        { id: 'dup', name: 'A' },
        { id: 'dup', name: 'B' },
      ],
    },
    invalidParams: [
      'categories.0.id',
      'categories.0.name',
      'categories.0.fields.0.options',
      'categories.0.fields.1.type',
      'categories.2.id',
    ],
  },
  {
    r: 'statuses',
    defaults: [
      { id: 'open', name: 'Open', closed: false, color: '#2563eb' },
      { id: 'pending', name: 'Pending', closed: false, color: '#d97706' },
      { id: 'answered', name: 'Answered', closed: false, color: '#059669' },
      { id: 'closed', name: 'Closed', closed: true, color: '#6b7280' },
    ],
    valid: {
      statuses: [
        { id: 'open', name: 'Open' },
        { id: 'pending', name: 'Waiting' },
        { id: 'answered', name: 'Answered' },
        { id: 'closed', name: 'Done', closed: true, color: '#000' },
      ],
    },
    readBack: [
      { id: 'open', name: 'Open', closed: false, color: null },
      { id: 'pending', name: 'Waiting', closed: false, color: null },
      { id: 'answered', name: 'Answered', closed: false, color: null },
      { id: 'closed', name: 'Done', closed: true, color: '#000' },
    ],
    invalid: { statuses: [{ id: 'open', name: 'Open', color: 'red' }] },
    invalidParams: ['statuses.0.color', 'statuses'],
  },
  {
    r: 'macros',
    defaults: [],
    valid: {
      macros: [{ id: 'thanks', name: 'Thanks', message: 'Thanks {{name}}!', status: 'answered', priority: 'low' }],
    },
    readBack: [{ id: 'thanks', name: 'Thanks', message: 'Thanks {{name}}!', status: 'answered', priority: 'low' }],
    invalid: { macros: [{ id: 'x', name: 'X', message: '', priority: 'asap' }] },
    invalidParams: ['macros.0.message', 'macros.0.priority'],
  },
  {
    r: 'rules',
    defaults: [],
    valid: {
      rules: [
        {
          id: 'vip',
          name: 'VIP',
          event: 'ticket.created',
          conditions: [{ field: 'email', op: 'ends_with', value: '@vip.example' }],
          actions: [{ type: 'set_priority', value: 'high' }],
        },
      ],
    },
    readBack: [
      {
        id: 'vip',
        name: 'VIP',
        enabled: true,
        event: 'ticket.created',
        conditions: [{ field: 'email', op: 'ends_with', value: '@vip.example' }],
        actions: [{ type: 'set_priority', value: 'high' }],
      },
    ],
    invalid: {
      rules: [
        {
          id: 'r',
          name: 'R',
          event: 'ticket.exploded',
          conditions: [{ field: 'mood', op: 'equals', value: 'x' }],
          actions: [],
        },
      ],
    },
    invalidParams: ['rules.0.event', 'rules.0.conditions.0.field', 'rules.0.actions'],
  },
  {
    r: 'tags',
    defaults: [],
    valid: {
      tags: [
        { name: 'vip', color: '#f00' },
        { name: 'refund', color: '#00ff00' },
      ],
    },
    readBack: [
      { name: 'vip', color: '#f00' },
      { name: 'refund', color: '#00ff00' },
    ],
    invalid: {
      tags: [
        { name: 'vip', color: 'red' },
        { name: 'VIP', color: '#fff' },
      ],
    },
    invalidParams: ['tags.0.color', 'tags.1.name'],
  },
  {
    r: 'escalation',
    defaults: [],
    valid: {
      escalation: [
        {
          id: 'late',
          after_minutes: 60,
          when: 'no_first_response',
          actions: [{ type: 'set_priority', value: 'urgent' }],
        },
      ],
    },
    readBack: [
      {
        id: 'late',
        after_minutes: 60,
        when: 'no_first_response',
        actions: [{ type: 'set_priority', value: 'urgent' }],
      },
    ],
    invalid: {
      escalation: [
        { id: 'late', after_minutes: 0, when: 'someday', actions: [{ type: 'set_priority', value: 'urgent' }] },
      ],
    },
    invalidParams: ['escalation.0.after_minutes', 'escalation.0.when'],
  },
  {
    r: 'modules',
    defaults: [
      { name: 'kb', enabled: true },
      { name: 'uploads', enabled: true },
      { name: 'rating', enabled: true },
      { name: 'close_request', enabled: true },
      { name: 'webhooks', enabled: false },
    ],
    valid: {
      modules: [
        { name: 'kb', enabled: true },
        { name: 'uploads', enabled: false },
      ],
    },
    readBack: [
      { name: 'kb', enabled: true },
      { name: 'uploads', enabled: false },
    ],
    invalid: {
      modules: [
        { name: 'chat', enabled: true },
        { name: 'webhooks', enabled: true, settings: { url: 'not a url' } },
      ],
    },
    invalidParams: ['modules.0.name', 'modules.1.settings.url'],
  },
  {
    r: 'design',
    defaults: {
      title: 'Support',
      greeting: 'Hi! How can we help?',
      primary_color: '#2563eb',
      position: 'bottom-right',
      theme: 'auto',
      launcher_label: null,
      logo_url: null,
      locale: 'en',
    },
    valid: { title: 'Help', primary_color: '#111111', locale: 'de' },
    readBack: {
      title: 'Help',
      greeting: 'Hi! How can we help?',
      primary_color: '#111111',
      position: 'bottom-right',
      theme: 'auto',
      launcher_label: null,
      logo_url: null,
      locale: 'de',
    },
    invalid: {
      title: '',
      primary_color: 'blue',
      position: 'top',
      theme: 'neon',
      logo_url: 'javascript:alert(1)',
      locale: 'xx',
    },
    invalidParams: ['title', 'primary_color', 'position', 'theme', 'logo_url', 'locale'],
  },
  {
    r: 'sla',
    defaults: {
      enabled: false,
      business_hours_only: false,
      first_response_minutes: { low: 960, normal: 480, high: 240, urgent: 60 },
    },
    valid: { enabled: true, first_response_minutes: { urgent: 15 } },
    readBack: {
      enabled: true,
      business_hours_only: false,
      first_response_minutes: { low: 960, normal: 480, high: 240, urgent: 15 },
      resolution_minutes: { low: 5760, normal: 2880, high: 1440, urgent: 360 },
    },
    invalid: { enabled: 'yes please', first_response_minutes: { low: -5 } },
    invalidParams: ['enabled', 'first_response_minutes.low'],
  },
  {
    r: 'autoreply',
    defaults: { enabled: false, outside_hours_message: null },
    valid: { enabled: true, subject: 'Got it: {{subject}}', message: 'Hi {{name}}' },
    readBack: { enabled: true, subject: 'Got it: {{subject}}', message: 'Hi {{name}}', outside_hours_message: null },
    invalid: { subject: 'two\nlines', message: '' },
    invalidParams: ['subject', 'message'],
  },
  {
    r: 'autoclose',
    // Pending first: a support reply leaves tickets there by default (workflow).
    defaults: { enabled: false, after_days: 7, statuses: ['pending', 'answered'] },
    valid: { enabled: true, after_days: 3 },
    readBack: { enabled: true, after_days: 3, statuses: ['pending', 'answered'] },
    invalid: { after_days: 0, statuses: ['nonexistent'] },
    invalidParams: ['after_days'],
  },
  {
    r: 'workflow',
    defaults: { reply_status: 'pending' },
    valid: { reply_status: 'answered' },
    readBack: { reply_status: 'answered' },
    invalid: { reply_status: 'Not A Slug' },
    invalidParams: ['reply_status'],
  },
  {
    r: 'assignment',
    defaults: { mode: 'off', agents: [] },
    valid: { mode: 'round_robin' },
    readBack: { mode: 'round_robin', agents: [] },
    invalid: { mode: 'random', agents: ['agt_nobody'] },
    invalidParams: ['mode'],
  },
  {
    r: 'blocklists',
    defaults: { emails: [], domains: [], ips: [], keywords: [] },
    valid: {
      emails: ['Spam@Example.com'],
      domains: ['spam.example'],
      ips: ['203.0.113.0/24', '2001:db8::1'],
      keywords: ['casino'],
    },
    readBack: {
      emails: ['spam@example.com'],
      domains: ['spam.example'],
      ips: ['203.0.113.0/24', '2001:db8::1'],
      keywords: ['casino'],
    },
    invalid: { emails: ['nope'], domains: ['not a domain'], ips: ['300.1.1.1', '10.0.0.0/33'] },
    invalidParams: ['emails.0', 'domains.0', 'ips.0', 'ips.1'],
  },
  {
    r: 'business_hours',
    defaults: { timezone: 'UTC', holidays: [] },
    valid: { timezone: 'Europe/Berlin', days: { mon: [{ open: '09:00', close: '17:00' }] }, holidays: ['2026-12-25'] },
    readBack: {
      timezone: 'Europe/Berlin',
      days: { mon: [{ open: '09:00', close: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
      holidays: ['2026-12-25'],
    },
    invalid: {
      timezone: 'Mars/Olympus',
      days: { mon: [{ open: '18:00', close: '09:00' }], tue: [{ open: '9am', close: '5pm' }] },
      holidays: ['25.12.2026'],
    },
    invalidParams: ['timezone', 'days.mon.0.close', 'days.tue.0.open', 'holidays.0'],
  },
  {
    r: 'form',
    defaults: { require_category: false, show_page_url: true, privacy_notice: null, allow_attachments: true },
    valid: { require_category: true },
    readBack: { require_category: true, show_page_url: true, privacy_notice: null, allow_attachments: true },
    invalid: { require_category: 'sometimes' },
    invalidParams: ['require_category'],
  },
  {
    r: 'mail',
    defaults: {
      from_name: 'Support',
      from_address: null,
      smtp: {
        host: null,
        port: 587,
        secure: false,
        user: null,
        pass_set: false,
        allow_invalid_certificate: false,
        allow_plain_auth: false,
      },
    },
    valid: { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', port: 2525 } },
    readBack: {
      from_name: 'Support',
      from_address: 'help@shop.example',
      smtp: {
        host: '127.0.0.1',
        port: 2525,
        secure: false,
        user: null,
        pass_set: false,
        allow_invalid_certificate: false,
        allow_plain_auth: false,
      },
      email_notify: {
        customer_on_create: true,
        customer_on_reply: true,
        agents_on_create: false,
        agents_on_customer_reply: false,
        agent_emails: [],
      },
      inbound: {
        imap: {
          host: null,
          port: 993,
          secure: true,
          user: null,
          pass_set: false,
          allow_invalid_certificate: false,
          allow_plain_auth: false,
          folder: 'INBOX',
          processed_folder: 'Processed',
        },
      },
      dkim: { domain_name: null, key_selector: null, private_key_set: false },
      agent_reply_domains: [],
    },
    invalid: {
      from_name: 'a\r\nBcc: x',
      from_address: 'nope',
      smtp: { port: 70000 },
      email_notify: { agent_emails: ['x'] },
    },
    invalidParams: ['from_name', 'from_address', 'smtp.port', 'email_notify.agent_emails.0'],
  },
  {
    r: 'turnstile',
    defaults: { enabled: false, site_key: null, secret_set: false },
    valid: { enabled: true, site_key: '0x4AAA' },
    readBack: { enabled: true, site_key: '0x4AAA', secret_set: false },
    invalid: { enabled: 1 },
    invalidParams: ['enabled'],
  },
  {
    r: 'identity',
    defaults: { required: false, secret_set: false },
    valid: { secret: 'a-shop-identity-secret-of-32-chars!', required: true },
    readBack: { required: true, secret_set: true },
    invalid: { required: 'yes', secret: 'short' },
    invalidParams: ['secret', 'required'],
  },
];

describe('/admin resources', () => {
  it.each(CASES)(
    '$r: default, valid write, invalid write, read back',
    async ({ r, defaults, valid, readBack, invalid, invalidParams }) => {
      const first = await get(r);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body)).toEqual([r]);
      expect(first.body[r]).toMatchObject(defaults as object);

      const written = await post(r, valid);
      expect(written.status, written.text).toBe(200);
      expect(written.body).toEqual({ [r]: readBack });

      const refused = await post(r, invalid);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
      const params = refused.body.error.details.map((d: { param: string }) => d.param);
      expect(params).toEqual(expect.arrayContaining(invalidParams));

      expect((await get(r)).body).toEqual({ [r]: readBack }); // the refused write changed nothing
    },
  );

  it('r=all holds every resource but the logs', async () => {
    const all = await get('all');
    expect(Object.keys(all.body).sort()).toEqual(
      [...CASES.map((c) => c.r), 'agents', 'kb', 'webhook_secrets', 'priorities'].sort(),
    );
    expect(all.body.priorities).toEqual(['low', 'normal', 'high', 'urgent']);
    expect(all.body).not.toHaveProperty('audit');
    expect(all.body).not.toHaveProperty('webhook_log');
    expect(all.body).not.toHaveProperty('outbox');
  });

  it('answers 405 for read-only resources, 404 for unknown ones, 415 for non-JSON', async () => {
    const ro = await post('priorities', { priorities: [] });
    expect(ro.status).toBe(405);
    expect(ro.body.error.code).toBe('method_not_allowed');
    expect(ro.headers.get('allow')).toBe('GET');
    expect((await post('audit', {})).status).toBe(405);
    expect((await s.call('DELETE', '/admin?r=design&id=x')).status).toBe(405);
    const unknown = await get('wallpaper');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_not_found');
    const form = await s.call('POST', '/admin?r=design', { form: { title: 'x' } });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    const missing = await s.call('GET', '/admin');
    expect(missing.body.error.param).toBe('r');
    const badJson = await s.call('POST', '/admin?r=design', {
      body: '{',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(badJson.body.error.code).toBe('invalid_json');
  });

  it('takes only live secret keys', async () => {
    for (const key of [s.keys.pk, s.keys.pkTest, s.keys.skTest]) {
      const res = await get('design', key);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('live_secret_key_required');
    }
    expect((await s.call('GET', '/admin?r=design', { key: null })).status).toBe(401);
  });

  it('checks a list write as a whole and against the other resources', async () => {
    const res = await post('macros', { macros: [{ id: 'm', name: 'M', message: 'x', status: 'nonexistent' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].param).toBe('macros.0.status');
    const missingKey = await post('tags', { wrong: [] });
    expect(missingKey.body.error.param).toBe('tags');
  });
});

describe('integrity', () => {
  it('refuses to drop a status that tickets still have, and allows it once they have moved', async () => {
    const r = await startServer();
    try {
      const t = await createTicket(r);
      await r.call('POST', '/status', { json: { ticket_id: t.id, status: 'pending' } });
      const statuses = [
        { id: 'open', name: 'Open' },
        { id: 'closed', name: 'Closed', closed: true },
      ];
      const res = await r.call('POST', '/admin?r=statuses', { json: { statuses } });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('status_in_use');
      expect(res.body.error.message).toContain('pending');
      await r.call('POST', '/status', { json: { ticket_id: t.id, status: 'open' } });
      // autoclose still names "answered" by default
      const autoclose = await r.call('POST', '/admin?r=statuses', { json: { statuses } });
      expect(autoclose.status).toBe(409);
      expect(autoclose.body.error.message).toContain('autoclose');
      await r.call('POST', '/admin?r=autoclose', { json: { statuses: [] } });
      expect((await r.call('POST', '/admin?r=statuses', { json: { statuses } })).status).toBe(200);
    } finally {
      await r.close();
    }
  });

  it('keeps tickets readable when their category changes', async () => {
    await post('categories', {
      categories: [
        { id: 'shop', name: 'Shop', fields: [{ id: 'order', label: 'Order', type: 'number', required: true }] },
      ],
    });
    // Earlier cases switched Turnstile and require_category on; a secret key is not asked for either.
    const t = await createTicket(s, { category: 'shop', fields: { order: 5 } }, s.keys.sk);
    await post('categories', {
      categories: [{ id: 'shop', name: 'Shop', fields: [{ id: 'sku', label: 'SKU', type: 'text', required: true }] }],
    });
    const read = await s.call('GET', `/ticket?id=${t.id}`);
    expect(read.status).toBe(200);
    expect(read.body.fields).toEqual({ order: 5 });
    await post('categories', { categories: [] });
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.category).toBe('shop');
  });
});

describe('agents', () => {
  it('creates, updates and deletes agents; deleting unassigns their tickets', async () => {
    const created = await post('agents', {
      name: 'Grace',
      email: 'grace@shop.example',
      password: 'correct horse battery',
      role: 'admin',
    });
    expect(created.status).toBe(201);
    const agent = created.body.agent;
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_/),
      name: 'Grace',
      email: 'grace@shop.example',
      role: 'admin',
      active: true,
      two_factor_enabled: false,
      must_change_password: false,
      passkey_count: 0,
      invited: false,
      available: true,
      created_at: expect.any(String),
    });
    const updated = await post('agents', {
      id: agent.id,
      name: 'Grace H',
      email: 'grace@shop.example',
      two_factor_secret: 'JBSWY3DPEHPK3PXPJBSWY3DP',
      passkeys: [],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.agent).toMatchObject({
      name: 'Grace H',
      role: 'agent',
      two_factor_enabled: true,
      passkey_count: 0,
    });
    const dup = await post('agents', { name: 'Other', email: 'GRACE@shop.example' });
    expect(dup.body.error.param).toBe('email');
    expect((await post('agents', { id: 'agt_nope', name: 'X', email: 'x@shop.example' })).body.error.code).toBe(
      'agent_not_found',
    );
    expect((await post('agents', { name: 'X', email: 'x@shop.example', password: 'short' })).body.error.param).toBe(
      'password',
    );

    const live = await createTicket(s, {}, s.keys.sk);
    const test = await createTicket(s, {}, s.keys.skTest);
    await s.call('POST', '/assign', { json: { ticket_id: live.id, agent_id: agent.id } });
    await s.call('POST', '/assign', { key: s.keys.skTest, json: { ticket_id: test.id, agent_id: agent.id } });
    const deleted = await s.call('DELETE', `/admin?r=agents&id=${agent.id}`);
    expect(deleted.body).toEqual({ id: agent.id, deleted: true });
    expect((await s.call('GET', `/ticket?id=${live.id}`)).body.agent_id).toBeNull();
    expect((await s.call('GET', `/ticket?id=${test.id}`, { key: s.keys.skTest })).body.agent_id).toBeNull();
    expect((await get('agents')).body.agents.find((a: { id: string }) => a.id === agent.id)).toBeUndefined();
    expect((await s.call('DELETE', `/admin?r=agents&id=${agent.id}`)).body.error.code).toBe('agent_not_found');
  });

  // At the production cost, which is what is stored outside the tests.
  it('stores passwords with scrypt, never in plain text', () =>
    atFullPasswordCost(async () => {
      const created = await post('agents', {
        name: 'Ken',
        email: 'ken@shop.example',
        password: 'a very long passphrase',
      });
      const config = JSON.parse(await storedConfigText(s));
      const stored = config.agents.find((a: { id: string }) => a.id === created.body.agent.id);
      expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(JSON.stringify(config)).not.toContain('a very long passphrase');
      // Checked here with node's scrypt and the parameters stored in the hash, not with the server's code.
      const [, n, r, p, salt, key] = stored.password_hash.split('$');
      const derive = (password: string) =>
        scryptSync(password, Buffer.from(salt, 'base64'), 32, {
          N: Number(n),
          r: Number(r),
          p: Number(p),
          maxmem: 64 * 1024 * 1024,
        }).toString('base64');
      expect(derive('a very long passphrase')).toBe(key);
      expect(derive('wrong')).not.toBe(key);
      // Updating without a password keeps the hash.
      await post('agents', { id: stored.id, name: 'Ken', email: 'ken@shop.example' });
      const after = JSON.parse(await storedConfigText(s));
      expect(after.agents.find((a: { id: string }) => a.id === stored.id).password_hash).toBe(stored.password_hash);
    }));
});

describe('secrets stay in', () => {
  it('keeps omitted secrets, removes them on null, and only ever shows *_set', async () => {
    await post('mail', { smtp: { host: 'smtp.example', pass: 'hunter2-canary' } });
    expect((await get('mail')).body.mail.smtp).toEqual({
      host: 'smtp.example',
      port: 587,
      secure: false,
      user: null,
      pass_set: true,
      allow_invalid_certificate: false,
      allow_plain_auth: false,
    });
    await post('mail', { smtp: { host: 'SMTP.example' } }); // the same host, spelt otherwise
    expect((await get('mail')).body.mail.smtp.pass_set).toBe(true);
    await post('mail', { smtp: { host: 'smtp.example', pass: null } });
    expect((await get('mail')).body.mail.smtp.pass_set).toBe(false);

    await post('turnstile', { enabled: false, secret: 'ts-secret-canary' });
    expect((await get('turnstile')).body.turnstile).toEqual({ enabled: false, site_key: null, secret_set: true });

    const modules = [
      {
        name: 'webhooks',
        enabled: true,
        settings: { url: 'https://hooks.example/hook', secret: 'whsec-canary-0123456789' },
      },
    ];
    const w = await post('modules', { modules });
    expect(w.body.modules[0].settings).toEqual({
      url: 'https://hooks.example/hook',
      events: expect.any(Array),
      secret_set: true,
    });
    await post('modules', {
      modules: [{ name: 'webhooks', enabled: true, settings: { url: 'https://hooks.example/other' } }],
    });
    expect((await get('modules')).body.modules[0].settings.secret_set).toBe(true);
  });

  it('never carries a stored secret to a new destination unless it is sent again', async () => {
    const config = () => storedConfigText(s);
    const smtp = { host: 'smtp.example', port: 587, user: 'shop' };
    for (const moved of [{ host: 'evil.example' }, { port: 2525 }, { user: 'someone-else' }]) {
      await post('mail', { smtp: { ...smtp, pass: 'smtp-pass-canary' } });
      expect((await get('mail')).body.mail.smtp.pass_set).toBe(true);
      const res = await post('mail', { smtp: { ...smtp, ...moved } });
      expect(res.body.mail.smtp, JSON.stringify(moved)).toMatchObject({ ...moved, pass_set: false });
      expect(await config()).not.toContain('smtp-pass-canary'); // forgotten, not hidden
      // Sent with the new destination, a password is taken.
      await post('mail', { smtp: { ...smtp, ...moved, pass: 'smtp-pass-new' } });
      expect((await get('mail')).body.mail.smtp.pass_set).toBe(true);
    }

    const hook = (url: string, secret?: string) => ({
      modules: [{ name: 'webhooks', enabled: true, settings: { url, ...(secret ? { secret } : {}) } }],
    });
    // A webhook secret belongs to its URL: another URL gets a secret of its own, never the old one.
    await post('modules', hook('https://hooks.example/hook', 'whsec-canary-0123456789'));
    const moved = await post('modules', hook('https://hooks.example/elsewhere'));
    expect(moved.body.modules[0].settings.secret_set).toBe(true);
    expect(await config()).not.toContain('whsec-canary-0123456789');
  });
});

describe('/settings', () => {
  it('reads the mail settings with any secret key and writes them with a live one, replacing only what it names', async () => {
    const r = await startServer();
    try {
      const before = await r.call('GET', '/settings', { key: r.keys.skTest });
      expect(Object.keys(before.body).sort()).toEqual(['autoreply', 'business_hours', 'email_notify', 'smtp']);
      const res = await r.call('POST', '/settings', {
        key: r.keys.sk,
        json: {
          smtp: { host: 'mail.example', port: 465, secure: true, user: 'u', pass: 'pw-canary' },
          autoreply: { enabled: true },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.smtp).toEqual({
        host: 'mail.example',
        port: 465,
        secure: true,
        user: 'u',
        pass_set: true,
        allow_invalid_certificate: false,
        allow_plain_auth: false,
      });
      expect(res.body.autoreply.enabled).toBe(true);
      expect(res.body.email_notify).toEqual(before.body.email_notify);
      expect(res.body.business_hours).toEqual(before.body.business_hours);
      // The same stored objects as /admin.
      expect((await r.call('GET', '/admin?r=mail')).body.mail.smtp.host).toBe('mail.example');
      expect((await r.call('GET', '/admin?r=autoreply')).body.autoreply.enabled).toBe(true);
      const bad = await r.call('POST', '/settings', { json: { business_hours: { timezone: 'Nowhere/Town' } } });
      expect(bad.body.error.param).toBe('business_hours.timezone');
      expect((await r.call('GET', '/settings', { key: r.keys.pk })).body.error.code).toBe('secret_key_required');
    } finally {
      await r.close();
    }
  });
});

describe('audit log', () => {
  it('records every write by a secret key, newest first, with limit', async () => {
    const r = await startServer();
    try {
      await r.call('POST', '/admin?r=design', { json: { title: 'Audited' } });
      const t = await createTicket(r, {}, r.keys.sk);
      await r.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'high' } });
      await createTicket(r); // a customer's write is not audited
      await r.call('POST', '/settings', { json: { autoreply: { enabled: true } } });
      const log = await r.call('GET', '/admin?r=audit');
      const actions = log.body.audit.map((e: { action: string }) => e.action);
      expect(actions).toEqual(['settings.update', 'ticket.priority_changed', 'ticket.created', 'config.update']);
      const prio = log.body.audit[1];
      expect(prio).toEqual({
        id: expect.stringMatching(/^aud_/),
        at: expect.any(String),
        actor: { kind: 'secret', prefix: r.keys.sk.slice(0, 12) },
        action: 'ticket.priority_changed',
        target: t.id,
        details: { mode: 'live', from: 'normal', to: 'high' },
      });
      expect(log.body.audit[0].actor.prefix).toBe(r.keys.sk.slice(0, 12));
      expect((await r.call('GET', '/admin?r=audit&limit=2')).body.audit).toHaveLength(2);
      expect((await r.call('GET', '/admin?r=audit&limit=0')).status).toBe(400);
      expect((await r.call('GET', '/admin?r=webhook_log&limit=9999')).body.webhook_log).toEqual([]);
      await r.close({ keepData: true });
      const again = await startServer({ dataDir: r.dataDir, keys: r.keys });
      expect((await again.call('GET', '/admin?r=audit')).body.audit.map((e: { action: string }) => e.action)).toEqual(
        actions,
      );
      await again.close();
    } finally {
      await r.close();
    }
  });
});

describe('limits', () => {
  it('reads the rate limits and quotas in force, set by the environment, and refuses writes', async () => {
    const r = await startServer({
      env: {
        TICKETING_RATE_LIMIT_PK_PER_MINUTE: '42',
        TICKETING_QUOTA_TICKET_MB: '7',
        TICKETING_CUSTOMER_MAIL_PER_HOUR: '3',
      },
    });
    try {
      const res = await r.call('GET', '/admin?r=limits');
      expect(res.status).toBe(200);
      expect(res.body.limits).toEqual({
        rate_limit: expect.objectContaining({ pk_per_minute: 42, pk_creates_per_10_minutes: 10, sk_per_minute: 600 }),
        quotas: expect.objectContaining({ ticket_bytes: 7 * 1024 * 1024, ticket_files: 50 }),
        customer_mail_per_hour: 3,
      });
      const write = await r.call('POST', '/admin?r=limits', { json: { customer_mail_per_hour: 100 } });
      expect(write.status).toBe(405);
      expect(write.body.error.code).toBe('method_not_allowed');
      expect((await r.call('GET', '/admin?r=all')).body).not.toHaveProperty('limits');
    } finally {
      await r.close();
    }
  });
});

describe('audit log search', () => {
  it('filters by actor, action, target and time, and pages with before', async () => {
    let now = new Date('2026-11-23T10:00:00Z');
    const r = await startServer({ clock: () => now });
    try {
      const at = (iso: string) => (now = new Date(iso));
      at('2026-11-23T10:00:00Z');
      await r.call('POST', '/admin?r=design', { json: { title: 'One' } });
      at('2026-11-23T11:00:00Z');
      const t = await createTicket(r, {}, r.keys.sk);
      at('2026-11-23T12:00:00Z');
      await r.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'high' } });
      at('2026-11-23T13:00:00Z');
      await r.call('POST', '/admin?r=form', { json: { require_category: true } });
      at('2026-11-23T14:00:00Z');
      await r.call('POST', '/status', { json: { ticket_id: t.id, status: 'pending' } });
      const actions = async (query: string) => {
        const res = await r.call('GET', `/admin?r=audit&${query}`);
        expect(res.status).toBe(200);
        return res.body.audit.map((e: { action: string; target: string | null }) => `${e.action} ${e.target}`);
      };
      expect(await actions('action=ticket.')).toEqual([
        `ticket.status_changed ${t.id}`,
        `ticket.priority_changed ${t.id}`,
        `ticket.created ${t.id}`,
      ]);
      expect(await actions('action=config.update&target=form')).toEqual(['config.update form']);
      expect(await actions(`actor=${r.keys.sk.slice(0, 12)}&action=config`)).toEqual([
        'config.update form',
        'config.update design',
      ]);
      expect(await actions('actor=SECRET&limit=1')).toEqual([`ticket.status_changed ${t.id}`]); // a kind, any case
      expect(await actions('actor=nobody')).toEqual([]);
      // Time: from inclusive, to exclusive, offsets understood.
      expect(await actions('from=2026-11-23T11:00:00Z&to=2026-11-23T13:00:00Z')).toEqual([
        `ticket.priority_changed ${t.id}`,
        `ticket.created ${t.id}`,
      ]);
      expect(await actions('from=2026-11-23T14:00:00%2B01:00')).toEqual([
        `ticket.status_changed ${t.id}`,
        'config.update form',
      ]);
      // Paging: the next page starts after the last entry shown, filters still apply.
      const page1 = (await r.call('GET', '/admin?r=audit&limit=2')).body.audit;
      expect(page1.map((e: { action: string }) => e.action)).toEqual(['ticket.status_changed', 'config.update']);
      const page2 = (await r.call('GET', `/admin?r=audit&limit=2&before=${page1[1].id}`)).body.audit;
      expect(page2.map((e: { action: string }) => e.action)).toEqual(['ticket.priority_changed', 'ticket.created']);
      const page3 = (await r.call('GET', `/admin?r=audit&limit=2&before=${page2[1].id}`)).body.audit;
      expect(page3.map((e: { action: string }) => e.action)).toEqual(['config.update']);
      expect(
        (await r.call('GET', `/admin?r=audit&action=ticket.&before=${page1[0].id}`)).body.audit.map(
          (e: { action: string }) => e.action,
        ),
      ).toEqual(['ticket.priority_changed', 'ticket.created']);
      expect((await r.call('GET', '/admin?r=audit&before=aud_unknown')).body.audit).toEqual([]);
      const bad = await r.call('GET', '/admin?r=audit&from=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('from');
    } finally {
      await r.close();
    }
  });
});
