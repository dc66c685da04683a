import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, signIn, startStack, type Stack } from './harness.js';

// Both sides at once, as a newcomer plays them with `pnpm demo`: a customer files a ticket from the
// widget on the shop page while the agent's console is open; the agent sees it arrive, answers; the
// customer reads the answer in the widget and replies there; the agent sees that reply arrive in the
// open thread. No reloads anywhere.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ demo: true });
});
afterAll(() => stack?.close());

describe('an agent and a customer at the same time', () => {
  it('works a ticket end to end while the customer writes from the widget', async () => {
    const logs = stack.api.logs;
    const at = logs.findIndex((l) => l.startsWith('Support console:'));
    const email = /email:\s+(\S+)/.exec(logs[at + 1] ?? '')?.[1] ?? '';
    const password = /password:\s+(\S+)/.exec(logs[at + 2] ?? '')?.[1] ?? '';
    const agent = await openConsole(stack);
    await signIn(agent.page, { email, password });
    await agent.page.getByRole('link', { name: 'Inbox' }).waitFor();

    // The customer, in a browser of their own, on the demo shop page.
    const customerContext = await stack.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const shop = await customerContext.newPage();
    const shopErrors: string[] = [];
    shop.on('pageerror', (e) => shopErrors.push(e.message));
    await shop.goto(`${stack.api.url}/`);
    await shop.locator('[data-ticketing] button.launcher').click();
    await shop.getByRole('dialog').waitFor();
    await shop.getByRole('button', { name: 'New ticket' }).click();
    await shop.getByLabel('Name').fill('Ada Lovelace');
    await shop.getByLabel('Email').fill('ada@example.com');
    // The demo's first topic asks for an order number.
    await shop.getByLabel('Topic').selectOption({ index: 1 });
    await shop.getByLabel('Order number').fill('10042');
    await shop.getByLabel('Subject').fill('The spout drips');
    await shop.getByLabel('Message').fill('Every time I pour, tea runs down the spout.');
    await shop.getByRole('button', { name: 'Send' }).click();
    await shop.getByRole('heading', { name: 'The spout drips' }).waitFor();

    // The agent's open inbox shows it without a reload, and the agent answers from the thread.
    const row = agent.page.getByText('The spout drips').first();
    await row.waitFor({ timeout: 5_000 });
    await row.click();
    await agent.page.getByRole('heading', { name: 'The spout drips' }).waitFor();
    await agent.page.locator('#reply-text').fill('A drip-free spout ring is on its way.');
    await agent.page.getByRole('button', { name: 'Send', exact: true }).click();

    // The customer's open ticket shows the answer, with the agent's name and never their email.
    await shop.getByText('A drip-free spout ring is on its way.').waitFor({ timeout: 15_000 });
    const thread = await shop.locator('[data-ticketing]').evaluate((h) => h.shadowRoot!.textContent ?? '');
    expect(thread).not.toContain(email);

    await shop.getByLabel('Your reply').fill('Thank you, that was quick!');
    await shop.getByRole('button', { name: 'Reply' }).click();
    // The agent's open thread shows the customer's reply live.
    await agent.page.getByText('Thank you, that was quick!').waitFor({ timeout: 5_000 });

    const list = await stack.api.call('GET', '/list?q=spout');
    const stored = (await stack.api.call('GET', `/ticket?id=${list.body.data[0].id}`)).body;
    expect(
      stored.replies.map((r: { from_customer: boolean; message: string }) => [r.from_customer, r.message]),
    ).toEqual([
      [false, 'A drip-free spout ring is on its way.'],
      [true, 'Thank you, that was quick!'],
    ]);
    expect(agent.errors).toEqual([]);
    expect(shopErrors).toEqual([]);
    await customerContext.close();
    await agent.close();
  });
});
