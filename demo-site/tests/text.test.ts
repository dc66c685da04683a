import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

// Issue 31's support cases: codes with underscores, a URL with underscores and a query, sums with
// stars, an address on five lines. The customer writes them as plain text and support as Markdown;
// either way they read exactly as typed.
const LINK = 'https://shop.example/orders/track_my_order?id=ab_12&lang=en';
const TEXT = [
  'Use voucher SPRING_SALE_2026 or SUMMER_2026_VIP.',
  `Track it: ${LINK}`,
  '2 * 3 * 4 = 24',
  'Ticketing Ltd',
  'Attn: Returns',
  '12 Harbour Road',
  'Bristol BS1 5TT',
  'United Kingdom',
].join('\n');

describe('text in the widget', () => {
  it('shows the customer’s words and support’s Markdown exactly as written, with the address a link', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Plain Text');
    await page.getByLabel('Email').fill('plain@example.com');
    await page.getByLabel('Subject').fill('Voucher refused');
    await page.getByLabel('Message').fill(TEXT);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Voucher refused' }).waitFor();
    const id = (await stack.api.call('GET', '/list?email=plain@example.com')).body.data[0].id as string;
    await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: TEXT } });
    const support = page.locator('[data-ticketing] .msg.theirs .article');
    await support.waitFor({ timeout: 15_000 });

    const customer = page.locator('[data-ticketing] .msg.mine').first();
    await customer.locator('a').first().waitFor();
    // innerText is what is on screen: line breaks as drawn, no marks taken away.
    expect(await customer.innerText()).toContain(TEXT);
    expect(await support.innerText()).toBe(TEXT);
    for (const message of [customer, support]) {
      const links = message.locator('a');
      expect(await links.count()).toBe(1);
      expect(await links.getAttribute('href')).toBe(LINK);
      expect(await links.innerText()).toBe(LINK);
      expect(await message.locator('em, strong').count()).toBe(0);
    }
    await shot(page, 'text-as-written');
    expect(errors).toEqual([]);
    await context.close();
  });
});
