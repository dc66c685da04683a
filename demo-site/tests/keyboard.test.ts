import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** What has focus, looking into the widget's shadow root. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return {
      tag: el?.tagName.toLowerCase(),
      id: el?.id,
      label: el?.getAttribute('aria-label'),
      text: el?.textContent?.trim().slice(0, 40),
    };
  });

async function tabTo(page: Page, match: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 25) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (match(await focused(page))) return;
  }
  throw new Error(`could not reach it by Tab; focus is on ${JSON.stringify(await focused(page))}`);
}

describe('keyboard alone', () => {
  it('opens the widget, files a ticket, closes with Escape and returns focus to the launcher', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await page.locator('[data-ticketing] button.launcher').waitFor();
    await tabTo(page, (f) => f.label === 'Contact support');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect((await focused(page)).id).toBe('tk-q'); // focus moved into the dialog
    await tabTo(page, (f) => f.text === 'New ticket');
    await page.keyboard.press('Enter');
    await page.getByLabel('Subject').waitFor();
    expect((await focused(page)).id).toBe('tk-name');
    await page.keyboard.type('Kay Board');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kay@example.com');
    await page.keyboard.press('Tab');
    expect((await focused(page)).id).toBe('tk-category');
    await page.keyboard.press('ArrowDown'); // first topic: Orders, which asks for an order number
    await page.keyboard.press('Tab');
    expect((await focused(page)).id).toBe('tk-f-order_number');
    await page.keyboard.type('77');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed, not clicked');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Every step by keyboard.');
    await tabTo(page, (f) => f.text === 'Send');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Typed, not clicked' }).waitFor();
    const list = await stack.api.call('GET', '/list?q=Typed%2C%20not%20clicked');
    expect(list.body.data[0]).toMatchObject({
      name: 'Kay Board',
      email: 'kay@example.com',
      category: 'orders',
      fields: { order_number: 77 },
    });
    // A visible focus ring on whatever has focus.
    const ring = await page.evaluate(() => {
      const host = document.querySelector('[data-ticketing]')!;
      const el = host.shadowRoot!.activeElement as HTMLElement;
      return getComputedStyle(el).outlineStyle;
    });
    expect(ring).not.toBe('none');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await focused(page)).label).toBe('Contact support');
    expect(errors).toEqual([]);
    await context.close();
  });
});
