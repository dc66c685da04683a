import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

const panelBackground = (page: Page) =>
  page.evaluate(
    () =>
      getComputedStyle(document.querySelector('[data-ticketing]')!.shadowRoot!.querySelector('[role="dialog"]')!)
        .backgroundColor,
  );

/** Walks through every view, taking a screenshot of each. */
async function everyView(
  page: Page,
  prefix: string,
  labels: {
    newTicket: string;
    subject: string;
    send: string;
    search: string;
    name: string;
    email: string;
    message: string;
  },
) {
  await openWidget(page);
  await shot(page, `${prefix}-home`);
  await page.getByLabel(labels.search).fill('refund');
  await page.getByRole('button', { name: /How do refunds work/ }).click();
  await page.locator('[data-ticketing] .article').waitFor();
  await shot(page, `${prefix}-article`);
  await page.locator('[data-ticketing] .head .icon').first().click();
  await page.getByRole('button', { name: labels.newTicket }).click();
  await page.getByLabel(labels.subject).waitFor();
  await shot(page, `${prefix}-new-ticket`);
  await page.getByLabel(labels.name).fill('Screen Shot');
  await page.getByLabel(labels.email).fill('shot@example.com');
  await page.getByLabel(labels.subject).fill(`${prefix} ticket`);
  await page.getByLabel(labels.message).fill('For the screenshot.');
  await page.getByRole('button', { name: labels.send }).click();
  await page.getByRole('heading', { name: `${prefix} ticket` }).waitFor();
  await shot(page, `${prefix}-thread`);
}

describe('views', () => {
  it('are dark on a dark system, following the theme "auto"', async () => {
    const { page, context, errors } = await openPage(stack, 'dark.html', { colorScheme: 'dark' });
    await everyView(page, 'dark', {
      newTicket: 'New ticket',
      subject: 'Subject',
      send: 'Send',
      search: 'Search help articles',
      name: 'Name',
      email: 'Email',
      message: 'Message',
    });
    expect(await panelBackground(page)).toBe('rgb(17, 24, 39)');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speak German on the German page', async () => {
    const { page, context, errors } = await openPage(stack, 'de.html');
    await page.getByRole('button', { name: 'Support kontaktieren' }).waitFor();
    await everyView(page, 'de', {
      newTicket: 'Neue Anfrage',
      subject: 'Betreff',
      send: 'Senden',
      search: 'Hilfeartikel durchsuchen',
      name: 'Name',
      email: 'E-Mail',
      message: 'Nachricht',
    });
    expect(await panelBackground(page)).toBe('rgb(255, 255, 255)');
    await expect(page.getByRole('dialog').getAttribute('lang')).resolves.toBe('de');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fill a phone screen', async () => {
    const { page, context } = await openPage(stack, 'index.html', { viewport: { width: 390, height: 844 } });
    await openWidget(page);
    const box = (await page.getByRole('dialog').boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, 390, 844]);
    const size = await page.evaluate(
      () => getComputedStyle(document.querySelector('[data-ticketing]')!.shadowRoot!.querySelector('#tk-q')!).fontSize,
    );
    expect(size).toBe('16px'); // phones do not zoom into 16 px inputs
    await shot(page, 'phone-home');
    await context.close();
  });
});
