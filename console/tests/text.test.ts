import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
});
afterAll(() => stack?.close());

// Issue 31's support cases: codes with underscores, a URL with underscores and a query, sums with
// stars, an address on five lines. The customer's message is plain text and support's reply Markdown;
// either way the agent reads them exactly as typed.
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

describe('text in the console', () => {
  it('shows the customer’s words and support’s Markdown exactly as written', async () => {
    const t = await createTicket(stack.api, { subject: 'Voucher refused', message: TEXT });
    await stack.api.call('POST', '/reply', { json: { ticket_id: t.id, message: TEXT } });
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    // The inbox's first view lists tickets that need a reply; this one has one already.
    await page.getByText(/Sign out/).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${t.id}`);
    const support = page.locator('.msg-support .article');
    await support.waitFor();
    const customer = page.locator('.msg-customer .plain');
    await customer.locator('a').waitFor();
    // innerText is what is on screen: line breaks as drawn, no marks taken away.
    expect(await customer.innerText()).toBe(TEXT);
    expect(await support.innerText()).toBe(TEXT);
    for (const message of [customer, support]) {
      const links = message.locator('a');
      expect(await links.count()).toBe(1);
      expect(await links.getAttribute('href')).toBe(LINK);
      expect(await links.innerText()).toBe(LINK);
      expect(await message.locator('em, strong').count()).toBe(0);
    }
    await page.screenshot({ path: `${SHOTS}text-as-written.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
