import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '@ticketing/server/test-support';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';
import { shot } from './harness.js';

let api: TestServer;
let browser: Browser;
beforeAll(async () => {
  api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe('/docs in Chromium', () => {
  it('renders the API reference from the server alone, with no CSP violation', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    await page.goto(`${api.url}/docs`);

    // An endpoint is listed, with its method and summary, and opens to show its parameters.
    const create = page.locator('.opblock-post').filter({ hasText: '/create' }).first();
    await create.waitFor();
    expect(await create.textContent()).toContain('Create a ticket');
    await create.locator('.opblock-summary').click();
    await page.getByText('Request body').first().waitFor();
    // The answer's example is built from the Ticket schema behind a $ref: references resolve, and
    // Swagger UI lists none that did not.
    await create.locator('.responses-wrapper').getByText('close_request').first().waitFor();
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    // Swagger UI renders the rest as the page scrolls (every path has its GET, HEAD and OPTIONS now),
    // and keeps only the operations near the view: after a scroll, others than the first are shown.
    const paths = () => page.locator('.opblock-summary-path').allTextContents();
    const first = new Set(await paths());
    await page.mouse.wheel(0, 20_000);
    await expect
      .poll(async () => (await paths()).filter((p) => !first.has(p)).length, { timeout: 10_000 })
      .toBeGreaterThan(0);

    await shot(page, 'docs');

    expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    expect(errors).toEqual([]);
    // Everything came from this server: no CDN, no outside validator.
    expect(requests.filter((url) => !url.startsWith(api.url))).toEqual([]);
    await context.close();
  });
});
