import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/** Computed styles of the widget's key parts, read through the shadow root. */
const widgetStyles = (page: Page) =>
  page.evaluate(() => {
    const root = document.querySelector('[data-ticketing]')!.shadowRoot!;
    const pick = (sel: string) => {
      const el = root.querySelector(sel)!;
      const cs = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      return {
        font: cs.fontFamily,
        size: cs.fontSize,
        color: cs.color,
        bg: cs.backgroundColor,
        display: cs.display,
        lh: cs.lineHeight,
        w: Math.round(r.width),
        h: Math.round(r.height),
      };
    };
    return {
      dialog: pick('[role="dialog"]'),
      title: pick('#tk-title'),
      search: pick('#tk-q'),
      button: pick('.body .btn'),
      launcher: pick('button.launcher'),
    };
  });

describe('isolation', () => {
  it("looks and works the same on a page with hostile CSS, and leaves the page's layout alone", async () => {
    const normal = await openPage(stack, 'hostile-css.html');
    // The same hostile page without the widget, for the page's own layout.
    const bare = await stack.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const barePage = await bare.newPage();
    await barePage.route('**/widget.js', (r) => r.abort());
    await barePage.goto(`${stack.site}/hostile-css.html`);
    const box = (p: Page) =>
      p.evaluate(() =>
        ['#host-box', '#host-button', 'h1'].map((s) =>
          JSON.stringify(document.querySelector(s)!.getBoundingClientRect()),
        ),
      );
    const layoutBefore = await box(barePage);

    await openWidget(normal.page);
    await shot(normal.page, 'hostile-css');
    expect(await box(normal.page)).toEqual(layoutBefore);

    const plain = await openPage(stack, 'index.html');
    await openWidget(plain.page);
    expect(await widgetStyles(normal.page)).toEqual(await widgetStyles(plain.page));
    // Pixel for pixel the same panel: its inside, past the rounded corners that show the page behind.
    const inside = async (p: Page) => {
      const r = (await p.getByRole('dialog').boundingBox())!;
      return p.screenshot({ clip: { x: r.x + 16, y: r.y + 16, width: r.width - 32, height: r.height - 32 } });
    };
    const [a, b] = await Promise.all([inside(normal.page), inside(plain.page)]);
    expect(a.equals(b)).toBe(true);

    // And it works there: a ticket goes through.
    await normal.page.getByRole('button', { name: 'New ticket' }).click();
    await normal.page.getByLabel('Name').fill('Hostile Page');
    await normal.page.getByLabel('Email').fill('h@example.com');
    await normal.page.getByLabel('Subject').fill('From the hostile page');
    await normal.page.getByLabel('Message').fill('Still works.');
    await normal.page.getByRole('button', { name: 'Send' }).click();
    await normal.page.getByRole('heading', { name: 'From the hostile page' }).waitFor();
    expect(normal.errors).toEqual([]);
    await Promise.all([normal.context.close(), plain.context.close(), bare.close()]);
  });

  it('causes no Content-Security-Policy violation on a strict page', async () => {
    const { page, context, errors } = await openPage(stack, 'strict-csp.html');
    const response = await page.reload();
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await openWidget(page);
    await page.getByLabel('Search help articles').fill('refund');
    await page.getByRole('button', { name: /How do refunds work/ }).click();
    await page.getByRole('heading', { name: 'How do refunds work?' }).waitFor();
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Csp');
    await page.getByLabel('Email').fill('csp@example.com');
    await page.getByLabel('Subject').fill('Strict page');
    await page.getByLabel('Message').fill('No violations please.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Strict page' }).waitFor();
    await shot(page, 'strict-csp');
    expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    expect(await page.locator('#violations').textContent()).toBe('CSP violations: 0');
    expect(errors).toEqual([]);
    await context.close();
  });
});
