import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent, openConsole, SHOTS, signIn, startStack, type Stack } from './harness.js';

// The public help centre (/help) in Chromium with JavaScript switched off, as a search engine's crawler
// or a locked-down browser sees it: every page reads, searches and takes a vote by plain links and
// forms, and axe finds no violation of WCAG 2.1 A/AA on any of them, light and dark. With JavaScript
// off nothing can be evaluated in the page, so axe runs on each page visited in a second context where
// every script the page asks for is refused (the page has no inline script; its CSP forbids one).

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** Every axe violation (any impact) of WCAG 2.0/2.1 A and AA, as "rule: target". Run through the debugger. */
async function axe(page: Page): Promise<string[]> {
  return page.evaluate(async (source) => {
    if (!('axe' in window)) (0, eval)(source);
    const w = window as unknown as {
      axe: {
        run(
          context: Document,
          options: unknown,
        ): Promise<{ passes: unknown[]; violations: { id: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    const result = await w.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    if (!result.passes.length) throw new Error('axe checked nothing');
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  }, axeSource);
}

let stack: Stack;
const ok = async (path: string, json: unknown) => {
  const res = await stack.api.call('POST', path, { json });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
};

beforeAll(async () => {
  stack = await startStack();
  await ok('/admin?r=mail', { from_name: 'Teapot Shop', from_address: 'help@teapot.example' });
  await ok('/admin?r=design', { title: 'Teapot Shop', primary_color: '#0f766e' });
  await ok('/admin?r=kb', {
    title: 'How do refunds work?',
    body: 'Open your order and choose **Refund**.\n\n1. Pick the item\n2. Say why\n\nSee [our policy](https://shop.example/refunds). Code `SPRING_SALE_2026`.',
    category: 'Orders',
    published: true,
    translations: {
      fr: { title: 'Comment être remboursé ?', body: 'Ouvrez votre commande et choisissez **Rembourser**.' },
    },
  });
  await ok('/admin?r=kb', {
    title: 'Shipping times',
    body: 'We ship within two days.',
    category: 'Orders',
    published: true,
  });
  await ok('/admin?r=kb', {
    title: 'Caring for your teapot',
    body: '## Daily\n\nRinse with hot water.',
    published: true,
  });
  await ok('/admin?r=kb', { title: 'Draft: staff codes', body: 'STAFF50', published: false });
}, 60_000);
afterAll(() => stack?.close());

async function context(scheme: 'light' | 'dark', javaScriptEnabled: boolean): Promise<BrowserContext> {
  const made = await stack.browser.newContext({
    javaScriptEnabled,
    colorScheme: scheme,
    locale: 'en-GB',
    viewport: { width: 1024, height: 768 },
  });
  // The page's own scripts (the widget's loader, help.js) never run in either.
  if (javaScriptEnabled) await made.route(/\.js(\?|$)/, (route) => route.abort());
  return made;
}

describe('the help centre without JavaScript', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`reads, searches and takes a vote, and axe finds nothing (${scheme})`, async () => {
      const noJs = await context(scheme, false);
      const forAxe = await context(scheme, true);
      const page = await noJs.newPage();
      const axePage = await forAxe.newPage();
      try {
        const found: string[] = [];
        const check = async (name: string) => {
          await page.screenshot({ path: `${SHOTS}helpcentre-${name}-${scheme}.png`, fullPage: true });
          await axePage.goto(page.url());
          found.push(...(await axe(axePage)).map((v) => `${name}: ${v}`));
        };
        await page.goto(`${stack.api.url}/help`);
        expect(page.url()).toBe(`${stack.api.url}/help/en/`);
        expect(await page.locator('html').getAttribute('lang')).toBe('en');
        await page.getByRole('heading', { name: 'Orders', level: 2 }).waitFor();
        expect(await page.getByText('Draft: staff codes').count()).toBe(0);
        await check('home');

        // Listed in its section (Orders), and among the popular articles once it has been read.
        await page.getByRole('region', { name: 'Orders' }).getByRole('link', { name: 'How do refunds work?' }).click();
        await page.getByRole('heading', { name: 'How do refunds work?', level: 1 }).waitFor();
        expect(page.url()).toBe(`${stack.api.url}/help/en/how-do-refunds-work`);
        expect(await page.getByText('SPRING_SALE_2026').count()).toBe(1);
        const write = page.getByRole('link', { name: 'Write to us' });
        expect(await write.getAttribute('href')).toBe(
          'mailto:help@teapot.example?subject=How%20do%20refunds%20work%3F',
        );
        await check('article');

        await page.getByRole('button', { name: 'Yes' }).click();
        await page.getByRole('status').filter({ hasText: 'Thank you for your feedback.' }).waitFor();
        await check('voted');

        await page.getByRole('searchbox', { name: 'Search the help centre' }).fill('shiping');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('heading', { name: 'Results for “shiping”', level: 1 }).waitFor();
        await page.getByRole('link', { name: 'Shipping times' }).waitFor();
        await check('search');

        await page.getByRole('link', { name: 'Français' }).click();
        await page.getByRole('link', { name: 'Comment être remboursé ?' }).first().click();
        await page.getByRole('heading', { name: 'Comment être remboursé ?', level: 1 }).waitFor();
        expect(await page.locator('html').getAttribute('lang')).toBe('fr');
        await check('article-fr');

        await page.goto(`${stack.api.url}/help/ar/`);
        expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
        await check('home-ar');

        expect(found).toEqual([]);
      } finally {
        await noJs.close();
        await forAxe.close();
      }
    });
  }

  it('with JavaScript, "Write to us" opens the widget with the article as the subject', async () => {
    // The widget needs a live public key this server's own pages may use (the test keys are not stored).
    await ok('/admin?r=keys', { kind: 'public', mode: 'live' });
    const withJs = await stack.browser.newContext({ viewport: { width: 1024, height: 768 } });
    const page = await withJs.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text())) errors.push(m.text());
    });
    try {
      await page.goto(`${stack.api.url}/help/en/shipping-times`);
      await page.getByRole('link', { name: 'Write to us' }).click();
      // The click opened the widget instead of the mail program.
      expect(page.url()).toBe(`${stack.api.url}/help/en/shipping-times`);
      await page.getByRole('dialog').getByRole('button', { name: 'New ticket' }).click();
      await expect.poll(() => page.getByRole('textbox', { name: 'Subject' }).inputValue()).toBe('Shipping times');
      expect(await page.getByRole('textbox', { name: /Message/ }).inputValue()).toContain(
        `${stack.api.url}/help/en/shipping-times`,
      );
      expect(errors).toEqual([]);
    } finally {
      await withJs.close();
    }
  });

  it('counts the votes in the console’s Reports screen', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack, '/console/reports');
    try {
      await signIn(page, agent);
      const table = page.getByRole('table', { name: 'Was this article helpful?' });
      const row = table.getByRole('row', { name: /How do refunds work\?/ });
      // One "Yes" from each run above, none "No".
      await expect.poll(() => row.getByRole('cell').allTextContents()).toEqual(['2', '0']);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
