import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { freePort, startSilentServer, startSmtp, type TestSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let now = new Date('2026-11-23T10:00:00Z'); // a Monday, 11:00 in Berlin
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});

async function setup(opts: { smtpPort?: number; env?: Record<string, string> } = {}) {
  const s = await startServer({ clock, env: { TICKETING_PUBLIC_URL: 'https://support.shop.example', ...opts.env } });
  cleanup.push(() => s.close());
  let smtp: TestSmtp | undefined;
  if (opts.smtpPort === undefined) {
    smtp = await startSmtp();
    cleanup.push(() => smtp!.close());
  }
  const port = opts.smtpPort ?? smtp!.port;
  const res = await s.call('POST', '/admin?r=mail', {
    json: {
      from_name: 'Shop Support',
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port, secure: false },
      email_notify: {
        customer_on_create: true,
        customer_on_reply: true,
        agents_on_create: true,
        agents_on_customer_reply: true,
        agent_emails: ['desk@shop.example'],
      },
    },
  });
  expect(res.status).toBe(200);
  return { s, smtp: smtp! };
}

const outboxFiles = async (s: TestServer) =>
  (await readdir(join(s.dataDir, 'outbox'))).filter((n) => n.endsWith('.json'));

describe('mail', () => {
  it('sends the autoreply to the customer and tells the agents, with a link back', async () => {
    const { s, smtp } = await setup();
    await s.call('POST', '/admin?r=autoreply', {
      json: { enabled: true, subject: 'Got it: {{subject}}', message: 'Hello {{name}}, your number is {{ticket_id}}.' },
    });
    const t = await createTicket(s, { name: 'Ada', subject: 'Broken teapot', page_url: 'https://shop.example/orders' });
    const mails = await smtp.waitFor(2);
    const auto = mails.find((m) => m.to.includes('ada@example.com'))!;
    expect(auto.from).toBe('help@shop.example');
    expect(auto.subject).toBe('Got it: Broken teapot');
    expect(auto.text).toContain(`Hello Ada, your number is ${t.id}.`);
    expect(auto.text).toContain('https://shop.example/orders');
    expect(auto.html).toContain('<a href="https://shop.example/orders">');
    const agents = mails.find((m) => m.to.includes('desk@shop.example'))!;
    expect(agents.subject).toBe('New ticket: Broken teapot');
    expect(agents.text).toContain('I ordered a teapot last week.');
    expect(agents.text).toContain(`https://support.shop.example/v1/ticket?id=${t.id}`);
    await eventually(async () => (await outboxFiles(s)).length === 0, 5000, 'the outbox to empty'); // sent mail leaves it
  });

  it('uses the outside-hours text outside business hours', async () => {
    const { s, smtp } = await setup();
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port },
        email_notify: { agents_on_create: false },
      },
    });
    await s.call('POST', '/admin?r=business_hours', {
      json: { timezone: 'Europe/Berlin', days: { mon: [{ open: '09:00', close: '17:00' }] } },
    });
    await s.call('POST', '/admin?r=autoreply', {
      json: { enabled: true, message: 'We are here.', outside_hours_message: 'We are closed, back Monday 9:00.' },
    });
    await createTicket(s, { subject: 'in hours' });
    now = new Date('2026-11-23T18:00:00Z'); // 19:00 in Berlin
    await createTicket(s, { subject: 'after hours' });
    const mails = await smtp.waitFor(2);
    expect(mails.find((m) => m.subject.includes('in hours'))!.text).toContain('We are here.');
    expect(mails.find((m) => m.subject.includes('after hours'))!.text).toContain('We are closed, back Monday 9:00.');
  });

  it('sends a confirmation without autoreply, and notifies on replies per email_notify', async () => {
    const { s, smtp } = await setup();
    const t = await createTicket(s, { subject: 'Where is it' });
    await smtp.waitFor(2); // confirmation + agents
    expect(smtp.received.find((m) => m.to.includes('ada@example.com'))!.subject).toBe(
      'We received your request: Where is it',
    );
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.', author: 'Grace' } });
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'Thanks!' } });
    const mails = await smtp.waitFor(4);
    const toCustomer = mails.find((m) => m.subject === 'Re: Where is it')!;
    expect(toCustomer.to).toEqual(['ada@example.com']);
    expect(toCustomer.text).toContain('Grace replied to your ticket:');
    expect(toCustomer.text).toContain('It ships today.');
    const toAgents = mails.find((m) => m.subject === 'Customer reply: Where is it')!;
    expect(toAgents.to).toEqual(['desk@shop.example']);
    expect(toAgents.text).toContain('Thanks!');

    await s.call('POST', '/settings', {
      json: {
        email_notify: {
          customer_on_create: false,
          customer_on_reply: false,
          agents_on_create: false,
          agents_on_customer_reply: false,
        },
      },
    });
    await createTicket(s);
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'quiet' } });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received).toHaveLength(4);
  });

  it('keeps mail while the SMTP server is down and delivers it when it is back', async () => {
    const port = await freePort();
    const { s } = await setup({ smtpPort: port });
    const t = await createTicket(s, { subject: 'queued' });
    await new Promise((r) => setTimeout(r, 300)); // the first attempt fails at once (connection refused)
    expect((await outboxFiles(s)).length).toBe(2);
    const smtp = await startSmtp(port);
    cleanup.push(() => smtp.close());
    await s.running.scheduler.tick(); // not due yet: nothing is sent
    expect(smtp.received).toHaveLength(0);
    now = new Date(now.getTime() + 30_000); // the first retry is due within 30 s
    await s.running.scheduler.tick();
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => m.subject).sort()).toEqual(['New ticket: queued', 'We received your request: queued']);
    expect(mails.find((m) => m.to.includes(t.email))).toBeDefined();
    await eventually(async () => (await outboxFiles(s)).length === 0, 5000, 'the outbox to empty');
  });

  it('never loses queued mail across a restart', async () => {
    const port = await freePort();
    const first = await startServer({ clock });
    await first.call('POST', '/admin?r=mail', {
      json: { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', port } },
    });
    await createTicket(first, { subject: 'before restart' });
    await new Promise((r) => setTimeout(r, 300));
    await first.close({ keepData: true });
    const smtp = await startSmtp(port);
    cleanup.push(() => smtp.close());
    now = new Date(now.getTime() + 60_000);
    const second = await startServer({ clock, dataDir: first.dataDir, keys: first.keys });
    cleanup.push(() => second.close());
    const mails = await smtp.waitFor(1); // sent at start-up, without waiting for a tick
    expect(mails[0]!.subject).toBe('We received your request: before restart');
  });

  it('answers /create quickly when the SMTP server never greets', async () => {
    const silent = await startSilentServer();
    cleanup.push(() => silent.close());
    const { s } = await setup({ smtpPort: silent.port });
    const started = performance.now();
    const res = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: { name: 'A', email: 'a@example.com', subject: 's', message: 'm' },
    });
    expect(res.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await outboxFiles(s)).length).toBe(2); // queued durably, waiting for the server
  });

  it('queues nothing while mail is not configured', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    await s.call('POST', '/admin?r=autoreply', { json: { enabled: true } });
    await createTicket(s);
    expect(await outboxFiles(s)).toEqual([]);
  });
});
