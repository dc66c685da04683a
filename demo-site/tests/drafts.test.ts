import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('drafts', () => {
  it('survive a reload: the new-ticket form, and a reply', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Topic').selectOption('orders');
    await page.getByLabel('Order number').fill('31');
    await page.getByLabel('Name').fill('Dora Draft');
    await page.getByLabel('Email').fill('dora@example.com');
    await page.getByLabel('Subject').fill('Written, then reloaded');
    await page.getByLabel('Message').fill('Half of what I meant');
    await page.reload();
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    expect(
      await Promise.all(
        ['Topic', 'Order number', 'Name', 'Email', 'Subject', 'Message'].map((l) => page.getByLabel(l).inputValue()),
      ),
    ).toEqual(['orders', '31', 'Dora Draft', 'dora@example.com', 'Written, then reloaded', 'Half of what I meant']);
    await page.getByLabel('Message').fill('Half of what I meant, and the rest.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Written, then reloaded' }).waitFor();

    await page.getByLabel('Your reply').fill('One more thing');
    await page.reload();
    await openWidget(page);
    // The form starts empty again: that draft went with the ticket. Name and email stay for the next one.
    await page.getByRole('button', { name: 'New ticket' }).click();
    expect(await page.getByLabel('Subject').inputValue()).toBe('');
    expect(await page.getByLabel('Name').inputValue()).toBe('Dora Draft');
    expect(await page.getByLabel('Email').inputValue()).toBe('dora@example.com');
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: /Written, then reloaded/ }).click();
    expect(await page.getByLabel('Your reply').inputValue()).toBe('One more thing');
    await page.getByRole('button', { name: 'Reply' }).click();
    await page.locator('[data-ticketing] .msg.mine', { hasText: 'One more thing' }).waitFor();
    expect(await page.getByLabel('Your reply').inputValue()).toBe('');
    // No draft left: only who filed the ticket, on this device.
    const stored = await page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('ticketing:drafts:'))
        .map((k) => JSON.parse(localStorage.getItem(k)!)),
    );
    expect(stored).toEqual([{ replies: {}, me: { name: 'Dora Draft', email: 'dora@example.com' } }]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
