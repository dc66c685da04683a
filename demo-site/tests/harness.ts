import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startServer, type TestServer } from '@ticketing/server/test-support';
import { startDemoSite } from '@ticketing/server/test-support/site';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

const SHOTS = new URL('../screenshots/', import.meta.url).pathname;

export interface Stack {
  api: TestServer;
  site: string;
  browser: Browser;
  close(): Promise<void>;
}

/** The real server, the demo pages on another origin, and a browser. Seeded like a small shop. */
export async function startStack(): Promise<Stack> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package or set CHROMIUM_PATH`);
  const api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
  await api.call('POST', '/admin?r=categories', {
    json: {
      categories: [
        {
          id: 'orders',
          name: 'Orders',
          fields: [{ id: 'order_number', label: 'Order number', type: 'number', required: true }],
        },
        { id: 'general', name: 'Something else', fields: [] },
      ],
    },
  });
  for (const [title, body] of [
    [
      'How do refunds work?',
      'Open your order and choose **Refund**.\n\n- Unused: full refund\n- Damaged: a new teapot',
    ],
    ['Shipping times', 'We ship within *2 days*.'],
  ]) {
    await api.call('POST', '/admin?r=kb', { json: { title, body, published: true } });
  }
  const site = await startDemoSite(api.keys.pk, api.url);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  return {
    api,
    site: site.url,
    browser,
    async close() {
      await browser.close();
      await site.close();
      await api.close();
    },
  };
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  /** Every request the page made: URL and whether it carried a key in the Authorization header. */
  requests: { url: string; auth: string | undefined; cookie: string | undefined }[];
  errors: string[];
}

/** A fresh browser context and page, recording requests, page errors and CSP violations. */
export async function openPage(
  stack: Stack,
  path: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<Watched> {
  const context = await stack.browser.newContext({
    viewport: options.viewport ?? { width: 1200, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const requests: Watched['requests'] = [];
  const errors: string[] = [];
  page.on('request', (r) =>
    requests.push({ url: r.url(), auth: r.headers().authorization, cookie: r.headers().cookie }),
  );
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[]; __xss: number };
    w.__csp = [];
    w.__xss = 0;
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.alert = () => void w.__xss++;
  });
  await page.goto(`${stack.site}/${path}`);
  return { context, page, requests, errors };
}

/** Opens the widget from the launcher and waits for the dialog. */
export async function openWidget(page: Page) {
  await page.locator('[data-ticketing] button.launcher').click();
  await page.getByRole('dialog').waitFor();
  // Let the short opening animation finish before anything looks at pixels.
  await page.waitForFunction(
    () =>
      document.querySelector('[data-ticketing]')!.shadowRoot!.querySelector('[role="dialog"]')!.getAnimations()
        .length === 0,
  );
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}${name}.png` });
