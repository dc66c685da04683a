import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, refusals, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

// Issue 30 walked as a team's first day (an admin and two agents with role `agent`, 1280×800 and a
// phone's 390×844, English and German): what looked wrong on the screenshots, each checked by where
// things land on the page. Every walk of an agent with role `agent` gets no answer of 400 or more.

let stack: Stack;
let grace: TestAgent;
let ada: TestAgent;
let ticketId: string;

beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  ada = await makeAgent(stack, { name: 'Ada Lovelace', role: 'admin' });
  await makeAgent(stack, { name: 'Katherine Johnson', role: 'agent' });
  for (const subject of ['Where is my parcel', 'Broken kettle lid', 'Size exchange'])
    ticketId = (await createTicket(stack.api, { subject, name: 'Mia Customer' })).id;
});
afterAll(() => stack?.close());

/** Grace (or `who`) signed in, in a browser of that size and language, at `path`. */
async function signedIn(width: number, lang: 'en' | 'de', path = '/console/', who?: TestAgent) {
  const agent = who ?? grace;
  const context = await stack.browser.newContext({
    viewport: { width, height: width > 600 ? 800 : 844 },
    locale: lang === 'de' ? 'de-DE' : 'en-US',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${stack.api.url}/console/`);
  await page.locator('input[type=email]').waitFor();
  const refused = refusals(page);
  await page.locator('input[type=email]').fill(agent.email);
  await page.locator('input[type=password]').fill(agent.password);
  await page.locator('form button[type=submit]').first().click();
  await page.locator('header.top').waitFor();
  if (path !== '/console/') await page.goto(`${stack.api.url}${path}`);
  return { page, refused, errors, close: () => context.close() };
}

/** How many lines an element's text takes, by its height over its line height. */
const lines = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const style = getComputedStyle(el);
    return Math.round(el.getBoundingClientRect().height / parseFloat(style.lineHeight));
  });

describe('a team’s first day, as it looks', () => {
  for (const [width, lang, path] of [
    [390, 'en', '/console/'],
    [390, 'de', '/console/'],
    [1280, 'de', 'ticket'],
  ] as const)
    it(`the inbox's heading and count stay whole at ${width} px in ${lang}${path === 'ticket' ? ' beside a ticket' : ''}`, async () => {
      const { page, refused, errors, close } = await signedIn(
        width,
        lang,
        path === 'ticket' ? `/console/tickets/${ticketId}` : path,
      );
      const head = page.locator('.inbox-head');
      await head.getByText(lang === 'de' ? '3 Anfragen' : '3 tickets').waitFor();
      // "Needs reply" and "3 tickets" each on one line (they wrapped to two beside each other).
      expect(await lines(page, '.inbox-head h1')).toBe(1);
      expect(await lines(page, '.inbox-head .total')).toBe(1);
      // Nothing of the head runs past the list's edge ("Ansicht speichern" was cut to "Ansicht s").
      const overflow = await head.evaluate((el) => {
        const box = el.getBoundingClientRect();
        return [...el.querySelectorAll('h1, .total, button')]
          .filter((c) => c.getBoundingClientRect().right > box.right + 0.5)
          .map((c) => c.textContent);
      });
      expect(overflow).toEqual([]);
      await page.screenshot({ path: `${SHOTS}inbox-head-${width}-${lang}.png` });
      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    });

  for (const [width, lang] of [
    [390, 'en'],
    [1280, 'de'],
  ] as const)
    it(`the ? list keeps every key clear of its text at ${width} px in ${lang}`, async () => {
      const { page, refused, errors, close } = await signedIn(width, lang, `/console/tickets/${ticketId}`);
      await page.locator('#reply-text').waitFor();
      await page.locator('body').press('?');
      const dialog = page.getByRole('dialog');
      await dialog.locator('kbd').first().waitFor();
      // "Ctrl+Enter" ran into "Send the reply or note" in a key column of a fixed width.
      const overlaps = await dialog.locator('.keys > div').evaluateAll((rows) =>
        rows
          .map((row) => {
            const key = row.querySelector('kbd')!.getBoundingClientRect();
            const text = row.querySelector('dd')!.getBoundingClientRect();
            return { key: row.querySelector('kbd')!.textContent, gap: text.left - key.right };
          })
          .filter((r) => r.gap < 4),
      );
      expect(overlaps).toEqual([]);
      await page.screenshot({ path: `${SHOTS}shortcuts-${width}-${lang}.png` });
      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    });

  it('a ticket opened from the list while a search is still to fire stays open (the search applies beside it)', async () => {
    const { page, refused, errors, close } = await signedIn(1280, 'en');
    const rows = page.locator('.inbox a.subject');
    await rows.first().waitFor();
    // Typed and clicked in one go, inside the search's 300 ms wait: the old console opened the ticket,
    // then the search fired and took the agent back to the list.
    const opened = await page.evaluate(() => {
      const input = document.getElementById('inbox-search') as HTMLInputElement;
      input.value = 'kettle';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const row = document.querySelector<HTMLAnchorElement>('.inbox a.subject')!;
      row.click();
      return row.textContent;
    });
    await page.getByRole('heading', { name: opened!, level: 1 }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('kettle');
    await expect.poll(() => rows.allTextContents()).toEqual(['Broken kettle lid']);
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/tickets\/tkt_/);
    expect(await page.getByRole('heading', { name: opened!, level: 1 }).isVisible()).toBe(true);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('the settings fit a phone’s width in German (no page wider than the screen), for the admin', async () => {
    const { page, refused, errors, close } = await signedIn(390, 'de', '/console/settings/form', ada);
    // A category's row and the German save bar ("Kategorien speichern", "Änderungen verwerfen", …).
    await page.getByRole('button', { name: 'Kategorie hinzufügen' }).click();
    await page.getByRole('button', { name: 'Kategorien speichern' }).waitFor();
    const wider = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    expect(await wider()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}settings-form-390-de.png`, fullPage: true });
    // Screens with a table (the SLA's, the audit log's, the rate limits') or long German labels.
    for (const [section, heading] of [
      ['sla', 'SLA und Geschäftszeiten'],
      ['assignment', 'Zuweisung und Antwortstatus'],
      ['antispam', 'Spamschutz'],
      ['audit', 'Protokoll'],
    ]) {
      const leave = (d: { accept(): Promise<void> }) => void d.accept();
      page.once('dialog', leave);
      await page
        .getByRole('navigation', { name: 'Bereiche der Einstellungen' })
        .getByRole('link', { name: heading })
        .click();
      page.off('dialog', leave);
      await page.waitForURL(`**/console/settings/${section}`);
      await page.locator('.settings-main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(await wider(), section).toBeLessThanOrEqual(0);
    }
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('the profile (on a phone) has Available beside its box, and a language that is the agent’s own', async () => {
    const { page, refused, errors, close } = await signedIn(390, 'en', '/console/profile');
    const available = page.getByLabel('Available: round-robin assignment gives me new tickets');
    await available.waitFor();
    // The box sat alone, stretched across the card, above its text.
    const box = await available.boundingBox();
    expect(box!.width).toBeLessThan(40);
    const text = await page.locator('label', { has: available }).evaluate((l) => {
      const range = document.createRange();
      range.selectNodeContents(l.lastChild!);
      const first = range.getClientRects()[0]!;
      return { left: first.left, top: first.top, bottom: first.bottom };
    });
    // Its text starts to the right of the box, its first line level with it.
    expect(text.left).toBeGreaterThan(box!.x + box!.width);
    expect(text.top).toBeLessThan(box!.y + box!.height);
    expect(text.bottom).toBeGreaterThan(box!.y);

    // The header's language picker is hidden on a phone; the profile has one, kept on the server.
    expect(await page.locator('header .lang').isVisible()).toBe(false);
    await page.locator('main').getByLabel('Language').selectOption({ label: 'Deutsch' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Ihr Profil' }).waitFor();
    const own = () => page.evaluate(() => fetch('/v1/session').then((r) => r.json()));
    await expect.poll(async () => (await own()).agent.locale).toBe('de');
    await page.reload();
    await page.getByRole('heading', { name: 'Ihr Profil' }).waitFor();
    expect(await page.locator('main').getByLabel('Sprache').inputValue()).toBe('de');
    await page.screenshot({ path: `${SHOTS}profile-language-390.png`, fullPage: true });
    // Back to the browser's language (English here).
    await page.locator('main').getByLabel('Sprache').selectOption('');
    await page.getByRole('button', { name: 'Speichern', exact: true }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
