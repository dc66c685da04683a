import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('a customer, start to finish, in Chromium', () => {
  it("files a ticket with a custom field and a file, reads support's reply without a reload, replies, asks to close, and rates", async () => {
    const { page, requests, errors, context } = await openPage(stack, 'index.html');
    await openWidget(page);
    await shot(page, 'light-home');
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Topic').selectOption('orders');
    await page.getByLabel('Order number').fill('10042');
    await page.getByLabel('Subject').fill('Lid does not fit');
    await page.getByLabel('Message').fill('The lid of my teapot is too small.');
    // The file picker opens from the widget's own button (the browser's file input is hidden).
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('button', { name: 'Add files' }).click(),
    ]);
    await chooser.setFiles({ name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('Order 10042, 39 EUR') });
    await page.getByText('1 file', { exact: true }).waitFor();
    await shot(page, 'light-new-ticket');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Lid does not fit' }).waitFor();

    const list = await stack.api.call('GET', '/list?q=Lid%20does%20not%20fit');
    const id = list.body.data[0].id as string;
    const stored = await stack.api.call('GET', `/ticket?id=${id}`);
    expect(stored.body).toMatchObject({
      category: 'orders',
      fields: { order_number: 10042 },
      attachments: [{ name: 'receipt.txt', size: 19 }],
    });
    expect(stored.body.page_url).toBe(`${stack.site}/index.html`);

    // Support answers through the API; the open thread shows it without a reload (polling, ~10 s).
    await stack.api.call('POST', '/reply', {
      json: { ticket_id: id, message: 'Sorry! A new lid is on its way.', author: 'Grace' },
    });
    await page.getByText('Sorry! A new lid is on its way.').waitFor({ timeout: 15_000 });
    await shot(page, 'light-thread');

    await page.getByLabel('Your reply').fill('Thank you!');
    await page.getByRole('button', { name: 'Reply' }).click();
    await page.locator('[data-ticketing] .msg.mine', { hasText: 'Thank you!' }).waitFor();
    await page.getByRole('button', { name: /close the ticket/ }).click();
    await page.getByText('You asked to close this ticket.').waitFor();
    expect((await stack.api.call('GET', `/ticket?id=${id}`)).body.close_request.by).toBe('customer');

    await stack.api.call('POST', '/close-resolve', { json: { ticket_id: id, accept: true } });
    await page.getByRole('button', { name: '5 of 5' }).click({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByText('Thank you for your rating!').waitFor();
    await shot(page, 'light-rated');
    const final = (await stack.api.call('GET', `/ticket?id=${id}`)).body;
    expect(final).toMatchObject({
      status: 'closed',
      rating: { score: 5 },
      replies: [{ from_customer: false }, { from_customer: true, message: 'Thank you!' }],
    });

    // No cookies anywhere; the public key travels in the Authorization header, never in a URL.
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const apiCalls = requests.filter((r) => r.url.includes('/v1/'));
    expect(apiCalls.length).toBeGreaterThan(5);
    for (const r of requests) {
      expect(r.url).not.toContain(stack.api.keys.pk);
      expect(r.cookie).toBeUndefined();
    }
    for (const r of apiCalls) expect([`Bearer ${stack.api.keys.pk}`, undefined]).toContain(r.auth); // preflights carry none
    expect(apiCalls.some((r) => r.auth === `Bearer ${stack.api.keys.pk}`)).toBe(true);
    expect(requests.some((r) => r.url.includes(stack.api.keys.sk))).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('suggests articles while the subject is typed, and opens one', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByLabel('Search help articles').fill('ship');
    await page.getByRole('button', { name: /Shipping times/ }).waitFor();
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Subject').pressSequentially('refund please');
    await page.getByText('These articles may answer your question:').waitFor();
    await page.getByRole('button', { name: 'How do refunds work?' }).click();
    await page.getByRole('heading', { name: 'How do refunds work?' }).waitFor();
    await expect(page.locator('[data-ticketing] .article strong').textContent()).resolves.toBe('Refund');
    await shot(page, 'light-article');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('replays calls queued before the script loaded', async () => {
    const { page, context } = await openPage(stack, 'queued-calls.html');
    await page.getByRole('dialog').waitFor();
    await expect(page.locator('#events').textContent()).resolves.toBe('ready open ');
    await page.getByRole('button', { name: 'New ticket' }).click();
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Ada Lovelace');
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('ada@example.com');
    await expect(page.getByLabel('Subject').inputValue()).resolves.toBe('Question about my order');
    await context.close();
  });

  it('draws the launcher with no request of its own, from a tag in <head> before the body exists', async () => {
    const { page, context, requests, errors } = await openPage(stack, 'head-tag.html');
    const launcher = page.getByRole('button', { name: 'Contact support' });
    await launcher.waitFor();
    const api = (r: { url: string }) => new URL(r.url).pathname.startsWith('/v1/');
    expect(requests.filter(api)).toEqual([]);
    await launcher.click();
    await page.getByRole('dialog').waitFor();
    expect(requests.filter(api).map((r) => new URL(r.url).pathname)).toContain('/v1/widget-config'); // with the panel
    expect(errors).toEqual([]);
    await context.close();
  });
});
