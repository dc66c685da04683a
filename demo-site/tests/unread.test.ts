import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

const SECRET = 'demo-shop-identity-secret-0123456789';
const sign = (email: string) => createHmac('sha256', SECRET).update(email).digest('hex');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await stack.api.call('POST', '/admin?r=identity', { json: { secret: SECRET } });
});
afterAll(() => stack?.close());

describe('unread replies', () => {
  it('raise the launcher badge within 2 s of a support reply while the panel is closed, and no poll runs every second', async () => {
    const { page, context, requests, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Topic').selectOption('general');
    await page.getByLabel('Name').fill('Una Unread');
    await page.getByLabel('Email').fill('una@example.com');
    await page.getByLabel('Subject').fill('Where is my parcel?');
    await page.getByLabel('Message').fill('It has been a week.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Where is my parcel?' }).waitFor();
    const id = (await stack.api.call('GET', '/list?email=una@example.com')).body.data[0].id as string;
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The watcher is waiting on a long poll now.
    const polls = () => requests.filter((r) => r.url.includes('/v1/updates')).length;
    await expect.poll(polls).toBeGreaterThan(0);

    const replied = Date.now();
    await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: 'It left our warehouse today.' } });
    await page.getByRole('button', { name: 'Contact support, 1 unread reply' }).waitFor({ timeout: 2000 });
    expect(Date.now() - replied).toBeLessThan(2000);
    const badge = page.locator('[data-ticketing] .badge');
    expect(await badge.textContent()).toBe('1');
    expect(await badge.isVisible()).toBe(true);
    expect(await page.locator('[data-ticketing] span.sr[aria-live="polite"]').textContent()).toBe('1 unread reply');
    await shot(page, 'unread-badge');

    // Quiet for 3 s: at most the one poll that is waiting now, not one a second.
    const before = polls();
    await page.waitForTimeout(3000);
    expect(polls() - before).toBeLessThanOrEqual(1);

    // Seen: the panel opens again on the ticket, now with the reply, and the badge goes.
    await openWidget(page);
    await page.locator('[data-ticketing] .msg.theirs', { hasText: 'It left our warehouse today.' }).waitFor();
    await page.getByRole('button', { name: 'Contact support', exact: true }).waitFor();
    expect(await badge.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a verified customer', () => {
  it('sees the tickets filed in another browser context; a forged signature sees none', async () => {
    const identify = (signature: string) =>
      `Ticketing('identify', { email: 'vera@example.com', name: 'Vera', signature: '${signature}' })`;
    const first = await openPage(stack, 'index.html');
    await first.page.evaluate(identify(sign('vera@example.com')));
    await openWidget(first.page);
    await first.page.getByRole('button', { name: 'New ticket' }).click();
    await first.page.getByLabel('Topic').selectOption('general');
    await first.page.getByLabel('Subject').fill('Filed on my laptop');
    await first.page.getByLabel('Message').fill('Hello from the laptop.');
    // identify() filled in name and email.
    expect(await first.page.getByLabel('Email').inputValue()).toBe('vera@example.com');
    await first.page.getByRole('button', { name: 'Send' }).click();
    await first.page.getByRole('heading', { name: 'Filed on my laptop' }).waitFor();
    await first.context.close();

    const second = await openPage(stack, 'index.html');
    await second.page.evaluate(identify(sign('vera@example.com')));
    await openWidget(second.page);
    await second.page.getByRole('button', { name: /Filed on my laptop/ }).click();
    await second.page.locator('[data-ticketing] .msg.mine', { hasText: 'Hello from the laptop.' }).waitFor();
    await second.page.getByLabel('Your reply').fill('And now from my phone.');
    await second.page.getByRole('button', { name: 'Reply' }).click();
    await second.page.locator('[data-ticketing] .msg.mine', { hasText: 'And now from my phone.' }).waitFor();
    expect(second.errors).toEqual([]);
    await second.context.close();

    const forged = await openPage(stack, 'index.html');
    await forged.page.evaluate(
      identify(createHmac('sha256', 'not-the-secret-but-long-enough!!').update('vera@example.com').digest('hex')),
    );
    await openWidget(forged.page);
    await forged.page.getByText('No tickets from this browser yet.').waitFor();
    await forged.page.waitForTimeout(500);
    expect(await forged.page.getByText('Filed on my laptop').count()).toBe(0);
    await forged.context.close();
  });
});
