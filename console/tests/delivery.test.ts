import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '@ticketing/server/test-support';
import { startSmtp, type TestSmtp } from '@ticketing/server/test-support/smtp';
import { CHROMIUM, CHROMIUM_ARGS } from '../../demo-site/tests/chromium.js';
import { makeAgent, openConsole, refusals, signIn, SHOTS, type Stack, type TestAgent } from './harness.js';

// Each support reply shows what became of its mail (issue 30, "A failed mail is invisible to agents"),
// seen by an agent with role `agent`: mail goes to a real SMTP server on loopback that refuses one address.

let stack: Stack;
let smtp: TestSmtp;
let agent: TestAgent;
beforeAll(async () => {
  const api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
  smtp = await startSmtp(0, { refuse: ['gone@customer.example'] });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  stack = { api, browser, close: () => browser.close().then(() => api.close().then(() => smtp.close())) };
  const mail = await api.call('POST', '/admin?r=mail', {
    json: {
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
      email_notify: { customer_on_create: false, customer_on_reply: true },
    },
  });
  expect(mail.status).toBe(200);
  agent = await makeAgent(stack, { name: 'Grace Agent', role: 'agent' });
});
afterAll(() => stack?.close());

/** A ticket with a support reply whose mail has settled (sent or failed), as the API tells it. */
async function answered(api: TestServer, email: string, subject: string) {
  const t = await createTicket(api, { email, subject, name: 'Carla Customer' });
  await api.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.' } });
  for (let i = 0; i < 200; i++) {
    const now = await api.call('GET', `/ticket?id=${t.id}`);
    if (['sent', 'failed'].includes(now.body.replies.at(-1)?.delivery?.state)) return t.id;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error('the reply’s mail did not settle within 20 s');
}

describe('the delivery state under a support reply', () => {
  it('says "Sent", or "Not delivered" with the SMTP server’s reason, live; no answer of 400 or more', async () => {
    const sent = await answered(stack.api, 'carla@customer.example', 'Where is my teapot?');
    const failed = await answered(stack.api, 'gone@customer.example', 'Lid missing');
    const { page, errors, close } = await openConsole(stack, '/console/');
    await page.getByLabel('Email').waitFor(); // signed out: the console's own 401 for /session comes first
    const refused = refusals(page);
    await signIn(page, agent);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();

    await page.goto(`${stack.api.url}/console/tickets/${sent}`);
    await page.getByRole('heading', { name: 'Where is my teapot?' }).waitFor();
    const ok = page.locator('.thread .msg-support .delivery');
    await ok.waitFor();
    expect(await ok.textContent()).toBe('Sent');
    expect(await page.locator('.thread .msg-customer .delivery').count()).toBe(0);

    await page.goto(`${stack.api.url}/console/tickets/${failed}`);
    await page.getByRole('heading', { name: 'Lid missing' }).waitFor();
    const bad = page.locator('.thread .msg-support .delivery-failed');
    await bad.waitFor();
    const text = (await bad.textContent())!;
    expect(text).toMatch(/^Not delivered: .*550.*Recipient address rejected/);
    await page.screenshot({ path: `${SHOTS}delivery-failed.png` });
    expect(smtp.received.map((m) => m.to)).toEqual([['carla@customer.example']]);

    // A reply sent from the console: its state follows without a reload (the stream's ticket.changed).
    await page.goto(`${stack.api.url}/console/tickets/${sent}`);
    await page.getByRole('heading', { name: 'Where is my teapot?' }).waitFor();
    await page.locator('#reply-text').fill('And the lid is in the box too.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const latest = page.locator('.thread .msg-support').last();
    await latest.getByText('And the lid is in the box too.').waitFor();
    await latest.locator('.delivery', { hasText: 'Sent' }).waitFor({ timeout: 20_000 });
    const reloads = await page.evaluate(() => performance.getEntriesByType('navigation').length);
    expect(reloads).toBe(1);
    expect(smtp.received).toHaveLength(2);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
