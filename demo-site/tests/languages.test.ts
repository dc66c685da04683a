import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PNG_1PX } from '@ticketing/server/test-support';
import { ar } from '../../widget/src/i18n/ar.js';
import { de } from '../../widget/src/i18n/de.js';
import { en, type Strings } from '../../widget/src/i18n/en.js';
import { es } from '../../widget/src/i18n/es.js';
import { fr } from '../../widget/src/i18n/fr.js';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

// Walks every view of the widget in each language, as a customer would, and
// - fails on any text the customer can see or hear (text, aria-label, placeholder, title, alt) that is
//   the same as in the English walk: an untranslated string;
// - runs axe-core on the widget's shadow root in every view: no violation;
// - checks the rating stars' contrast with the panel (WCAG 1.4.11: 3:1), light and dark.

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  // Outside business hours, so every view that says so is walked too. A brand for a title and
  // greeting: the owner's words, the same in every language.
  await stack.api.call('POST', '/admin?r=business_hours', {
    json: { timezone: 'UTC', days: { mon: [{ open: '00:00', close: '00:01' }] } },
  });
  await stack.api.call('POST', '/admin?r=design', { json: { title: 'Teapot Shop', greeting: 'Teapot Shop ☕' } });
});
afterAll(() => stack?.close());

/**
 * Text that is the same in every language by nature, so equal to the English walk without being
 * untranslated: the owner's content (title, greeting, topics, custom fields, articles), what the
 * customer and support wrote (names, messages, file names), and sizes in byte, whose unit symbol
 * CLDR writes alike in English and Spanish ("7 bytes").
 */
const OWNERS_WORDS = new Set(['Teapot Shop', 'Teapot Shop ☕', 'Orders', 'Something else', 'Order number', 'Grace']);
const SIZE = /^[\d.,\s\u00a0\u202f]+(bytes?|kB|MB)$/;
/** Words a language spells as English does: Spanish "No" ("Was this helpful?" Yes/No). */
const ALIKE = new Set(['No']);

type Collected = { text: string; data: boolean }[];

/** Everything the widget shows or says, with a mark on what is content rather than the widget's words. */
const collect = (page: Page): Promise<Collected> =>
  page.evaluate(() => {
    const root = document.querySelector('[data-ticketing]')!.shadowRoot!;
    // Content, the same in every language: articles, their titles in lists, file names. (What the
    // customer and support write differs per walk: names, subjects and messages carry the locale.)
    const content = '.article, .body > h3:has(+ .article), .list button, .file .name, .chip';
    const out: { text: string; data: boolean }[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement!;
      const text = n.textContent!.trim();
      const shown = el.checkVisibility() || el.closest('.sr, option');
      if (text && shown) out.push({ text, data: Boolean(el.closest(content)) });
    }
    for (const el of root.querySelectorAll('*'))
      for (const a of ['aria-label', 'placeholder', 'title', 'alt']) {
        const text = el.getAttribute(a)?.trim();
        if (text) out.push({ text, data: Boolean(el.closest(content)) && a === 'alt' });
      }
    return out;
  });

/** axe-core on the widget (its shadow root included): the violations, as rule id and where. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown) => Promise<any> } }).axe;
    const result = await axe.run({ include: [['[data-ticketing]']] });
    return (result.violations as { id: string; nodes: { target: unknown[] }[] }[]).flatMap((v) =>
      v.nodes.map((n) => `${v.id} at ${JSON.stringify(n.target)}`),
    );
  });
}

const luminance = (rgb: string) => {
  const [r, g, b] = rgb
    .match(/[\d.]+/g)!
    .slice(0, 3)
    .map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};
const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
};

/** What the thread's 10 s poll does, without waiting for it. */
const refresh = (page: Page) => page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));

interface Walk {
  views: Record<string, Collected>;
  violations: string[];
  starContrast: number[];
}

/** Every view, in the order a customer meets them; returns what each showed. */
async function walk(page: Page, locale: string, t: Strings): Promise<Walk> {
  const views: Walk['views'] = {};
  const violations: string[] = [];
  const w = page.locator('[data-ticketing]');
  const view = async (name: string) => {
    views[name] = await collect(page);
    violations.push(...(await axe(page)).map((v) => `${name}: ${v}`));
    await shot(page, `lang-${locale}-${name}`);
  };
  await w.locator('button.launcher').waitFor();
  await openWidget(page);
  await view('home');
  await page.getByRole('searchbox', { name: t.searchLabel }).fill('refund');
  await w.locator('.list .item').first().waitFor();
  await view('search');
  await page.getByRole('searchbox', { name: t.searchLabel }).fill('zzqqxx');
  await w.getByText(t.noArticles).waitFor();
  await view('search-empty');
  await page.getByRole('searchbox', { name: t.searchLabel }).fill('refund');
  await w.locator('.list .item').first().click();
  await w.locator('.article').waitFor();
  await view('article');
  await page.getByRole('button', { name: t.back }).click();

  await page.getByRole('button', { name: t.newTicket }).click();
  await page.getByRole('combobox', { name: t.category }).selectOption('orders');
  await page.getByRole('button', { name: t.send, exact: true }).click();
  await w.locator('#tk-f-order_number-err').waitFor();
  await view('new-ticket-errors');
  await page.getByRole('textbox', { name: t.name, exact: true }).fill(`Kim ${locale}`);
  await page.getByRole('textbox', { name: t.email, exact: true }).fill(`kim.${locale}@example.com`);
  await page.getByRole('spinbutton', { name: 'Order number', exact: true }).fill('12');
  await page.getByRole('textbox', { name: t.subject, exact: true }).fill(`Lid ${locale}`);
  await page.getByRole('textbox', { name: t.message, exact: true }).fill(`Hello from ${locale}`);
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: t.addFiles }).click(),
  ]);
  await chooser.setFiles([
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('a') },
    { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('b') },
    { name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') },
  ]);
  await w.locator('#tk-files-err').waitFor();
  await view('new-ticket-files');
  await page.getByRole('button', { name: t.send, exact: true }).click();
  await w.locator('.created').waitFor();
  await view('created');

  const id = (await stack.api.call('GET', `/list?email=kim.${locale}@example.com`)).body.data[0].id as string;
  const reply = await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: `Answer for ${locale}` } });
  const form = new FormData();
  form.append('ticket_id', id);
  form.append('reply_id', reply.body.replies.at(-1).id);
  form.append('file', new Blob([PNG_1PX], { type: 'image/png' }), 'photo.png');
  await stack.api.call('POST', '/upload', { multipart: form });
  await refresh(page);
  await w.locator('.msg.theirs img.thumb').waitFor();
  await view('thread');
  await page.getByRole('button', { name: t.requestClose }).click();
  await w.getByText(t.closeRequested).waitFor();
  await view('close-requested');

  await stack.api.call('POST', '/close-resolve', { json: { ticket_id: id, accept: true } });
  await refresh(page);
  await page.getByRole('button', { name: fill(t.rateStar, { n: 4 }) }).click();
  await page.getByLabel(t.rateComment).waitFor();
  const starContrast = await page.evaluate(() => {
    const root = document.querySelector('[data-ticketing]')!.shadowRoot!;
    const bg = getComputedStyle(root.querySelector('[role="dialog"]')!).backgroundColor;
    return [...root.querySelectorAll('.star')].map((s) => [getComputedStyle(s).color, bg] as const);
  });
  await view('rating');
  await page.getByLabel(t.rateComment).fill('👍');
  await page.getByRole('button', { name: t.rateSend }).click();
  await w.getByText(t.thanks).waitFor();
  await view('rated');

  await page.getByRole('button', { name: t.back }).click();
  await page.getByRole('button', { name: t.forget }).waitFor();
  await view('home-with-tickets');
  return { views, violations, starContrast: starContrast.map(([a, b]) => contrast(a, b)) };
}

const walks: Record<string, Walk> = {};

describe('every view, in every language', () => {
  it('English: the reference, and no axe violation', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    walks.en = await walk(page, 'en', en);
    expect(walks.en.violations).toEqual([]);
    // axe does look into the shadow root: a button without a name put there is found.
    await page.evaluate(() =>
      document
        .querySelector('[data-ticketing]')!
        .shadowRoot!.querySelector('.body')!
        .append(document.createElement('button')),
    );
    expect((await axe(page)).filter((v) => v.startsWith('button-name'))).toHaveLength(1);
    expect(Math.min(...walks.en.starContrast)).toBeGreaterThanOrEqual(3);
    expect(errors).toEqual([]);
    await context.close();
  });

  const others: [string, Strings, string, 'light' | 'dark'][] = [
    ['de', de, 'de.html', 'light'],
    ['fr', fr, 'fr.html', 'light'],
    ['es', es, 'es.html', 'dark'],
    ['ar', ar, 'ar.html', 'light'],
  ];
  for (const [locale, t, path, theme] of others)
    it(`${locale}: no English string on any view, no axe violation (${theme})`, async () => {
      const reference = walks.en;
      if (!reference) throw new Error('the English walk must run first');
      await stack.api.call('POST', '/admin?r=design', {
        json: { title: 'Teapot Shop', greeting: 'Teapot Shop ☕', theme },
      });
      const { page, context, errors } = await openPage(stack, path, { colorScheme: theme });
      const result = await walk(page, locale, t);
      const english = new Set(Object.values(reference.views).flatMap((v) => v.map((x) => x.text)));
      const untranslated = Object.entries(result.views).flatMap(([name, texts]) =>
        texts
          .filter(
            (x) =>
              !x.data &&
              english.has(x.text) &&
              /\p{L}/u.test(x.text) &&
              !OWNERS_WORDS.has(x.text) &&
              !ALIKE.has(x.text) &&
              !SIZE.test(x.text),
          )
          .map((x) => `${name}: ${x.text}`),
      );
      expect(untranslated.join('\n')).toBe('');
      // The walk saw the language's own words (not an empty or English panel).
      const all = Object.values(result.views).flatMap((v) => v.map((x) => x.text));
      for (const s of [t.newTicket, t.requiredHint, t.createdTitle, t.thanks, t.yourTickets])
        expect(all, s).toContain(s);
      expect(result.violations).toEqual([]);
      expect(Math.min(...result.starContrast)).toBeGreaterThanOrEqual(3);
      const dialog = page.getByRole('dialog');
      expect(await dialog.getAttribute('lang')).toBe(locale);
      expect(await dialog.getAttribute('dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
      expect(errors).toEqual([]);
      await context.close();
    });
});

describe('right to left', () => {
  /** Where the launcher, the panel and its header buttons are, in px from the left. */
  const layout = (page: Page) =>
    page.evaluate(() => {
      const root = document.querySelector('[data-ticketing]')!.shadowRoot!;
      const box = (sel: string) => root.querySelector(sel)!.getBoundingClientRect();
      return {
        width: innerWidth,
        launcher: document.querySelector('[data-ticketing]')!.getBoundingClientRect(), // unscaled by :hover
        dialog: box('[role="dialog"]'),
        title: box('#tk-title'),
        close: box('.head .icon:last-child'),
      };
    });

  it('on a right-to-left page: launcher and panel bottom left, the panel laid out right to left', async () => {
    await stack.api.call('POST', '/admin?r=design', { json: { theme: 'light' } });
    const { page, context, errors } = await openPage(stack, 'ar.html');
    await openWidget(page);
    const l = await layout(page);
    expect(l.launcher.left).toBe(20);
    expect(l.dialog.left).toBe(20);
    expect(l.close.right).toBeLessThan(l.title.left); // the close button at the start of a right-to-left line: left
    expect(await page.getByRole('dialog').getAttribute('dir')).toBe('rtl');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on a left-to-right page: the launcher stays in its corner and the panel above it, laid out right to left', async () => {
    // index.html without its tag, then the same tag with data-locale="ar", as a site owner would write it.
    const context = await stack.browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/widget.js', (r) => r.abort());
    await page.goto(`${stack.site}/index.html`);
    await page.unroute('**/widget.js');
    await page.evaluate(
      ([api, key]) => {
        const tag = document.createElement('script');
        tag.src = `${api}/widget.js`;
        tag.dataset.key = key!;
        tag.dataset.locale = 'ar';
        document.body.append(tag);
      },
      [stack.api.url, stack.api.keys.pk],
    );
    await page.locator('[data-ticketing] button.launcher[aria-label="تواصل مع الدعم"]').waitFor();
    await openWidget(page);
    const l = await layout(page);
    expect(l.width - l.launcher.right).toBe(20);
    expect(l.width - l.dialog.right).toBe(20);
    expect(l.close.right).toBeLessThan(l.title.left);
    expect(await page.getByRole('dialog').getAttribute('dir')).toBe('rtl');
    expect(await page.getByRole('button', { name: ar.newTicket }).isVisible()).toBe(true);
    await shot(page, 'lang-ar-on-ltr-page');
    expect(errors).toEqual([]);
    await context.close();
  });
});
