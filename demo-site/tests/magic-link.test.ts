import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '@ticketing/server/test-support/smtp';
import { openPage, openWidget, startStack, type Stack } from './harness.js';

let stack: Stack;
let smtp: TestSmtp;
beforeAll(async () => {
  stack = await startStack();
  smtp = await startSmtp();
  await stack.api.call('POST', '/admin?r=mail', {
    json: {
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
      email_notify: { customer_on_create: true, customer_on_reply: true },
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await smtp?.close();
});

describe('the link in a notification mail', () => {
  it('opens the ticket in a fresh browser context, which can answer there', async () => {
    const { page, context } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Topic').selectOption('general');
    await page.getByLabel('Name').fill('Mia Mail');
    await page.getByLabel('Email').fill('mia@example.com');
    await page.getByLabel('Subject').fill('Lid does not fit');
    await page.getByLabel('Message').fill('The lid is too small.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Lid does not fit' }).waitFor();
    await context.close(); // the customer closes the tab

    const id = (await stack.api.call('GET', '/list?email=mia@example.com')).body.data[0].id as string;
    await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: 'A bigger lid is on its way.' } });
    const mails = await smtp.waitFor(2);
    const reply = mails.find((m) => m.text.includes('A bigger lid'))!;
    const href = /(http:\/\/[^\s]+\/t\/[A-Za-z0-9._-]+)/.exec(reply.text)![1]!;
    expect(reply.html).toContain(`href="${href}"`);

    // Another device: nothing in its storage, only the link.
    const phone = await stack.browser.newContext({ viewport: { width: 390, height: 844 } });
    const tab = await phone.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await tab.goto(href);
    await tab.locator('[data-ticketing] .msg.theirs', { hasText: 'A bigger lid is on its way.' }).waitFor();
    await tab.getByRole('heading', { name: 'Lid does not fit' }).waitFor();
    await tab.getByLabel('Your reply').fill('Thank you, it fits now.');
    await tab.getByRole('button', { name: 'Reply' }).click();
    await tab.locator('[data-ticketing] .msg.mine', { hasText: 'Thank you, it fits now.' }).waitFor();
    const stored = await stack.api.call('GET', `/ticket?id=${id}`);
    expect(stored.body.replies.at(-1)).toMatchObject({ message: 'Thank you, it fits now.', from_customer: true });
    expect(errors).toEqual([]);

    // Revoked by support: the same link opens nothing.
    await stack.api.call('POST', '/revoke-links', { json: { ticket_id: id } });
    const later = await (await stack.browser.newContext()).newPage();
    await later.goto(href);
    await later.getByText('This link has expired or was revoked. Ask support for a new one.').waitFor();
    expect(await later.getByText('A bigger lid is on its way.').count()).toBe(0);
    await phone.close();
  });
});
