import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, PNG_1PX } from '@ticketing/server/test-support';
import { de } from '../src/i18n/de.js';
import { en } from '../src/i18n/en.js';
import { makeAgent, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
let ticketId: string;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack, { name: 'Greta Graf', email: 'greta@shop.example' });
  // Customer text in German too, so that only the console's own words can be English.
  const form = new FormData();
  for (const [k, v] of Object.entries({
    name: 'Karla Kundin',
    email: 'karla@example.com',
    subject: 'Der Deckel passt nicht',
    message: 'Foto anbei.',
  }))
    form.append(k, v);
  form.append('attachments[]', new Blob([PNG_1PX], { type: 'image/png' }), 'deckel.png');
  const created = await stack.api.call('POST', '/create', { key: stack.api.keys.pk, multipart: form });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  ticketId = created.body.id;
  await stack.api.call('POST', '/reply', { json: { ticket_id: ticketId, message: 'Welches Modell ist es?' } });
  await stack.api.call('POST', '/reply', { json: { ticket_id: ticketId, message: 'Lager prüfen.', internal: true } });
  await createTicket(stack.api, { subject: 'Zweite Anfrage', name: 'Dora Dietz', message: 'Hallo.' });
});
afterAll(() => stack?.close());

/** The literal parts of a string with {placeholders}, each long enough to mean something alone. */
const fragments = (text: string) =>
  text
    .split(/\{\w+\}/)
    .map((f) => f.trim())
    .filter((f) => f.length >= 3 && /[a-z]/i.test(f));

/** Every English text of en.ts that German says differently (what must not show in German). */
const ENGLISH = Object.entries(en).flatMap(([key, value]) =>
  typeof value === 'string' && value !== (de as Record<string, unknown>)[key]
    ? fragments(value).map((f) => ({ key, text: f }))
    : [],
);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a person (or a screen reader) meets on the page: visible text, labels, titles, placeholders. */
const shownText = (page: Page) =>
  page.evaluate(() => {
    const parts = [document.body.innerText, document.title];
    for (const el of document.querySelectorAll('[aria-label],[title],[placeholder],[alt]'))
      for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
        const v = el.getAttribute(a);
        if (v) parts.push(v);
      }
    return parts.join('\n');
  });

/** German texts, longest first: taken out of what is shown before looking for English ("Details der Anfrage"). */
const GERMAN = Object.values(de)
  .flatMap((v) => (typeof v === 'string' ? fragments(v) : []))
  .sort((a, b) => b.length - a.length);

/** The English strings on the screen now, as "key: text". */
async function englishOn(page: Page) {
  let shown = await shownText(page);
  for (const g of GERMAN) shown = shown.split(g).join('\n');
  return ENGLISH.filter(({ text }) => new RegExp(`(^|[^\\p{L}])${escape(text)}($|[^\\p{L}])`, 'u').test(shown)).map(
    ({ key, text }) => `${key}: ${text}`,
  );
}

describe('the console in German', () => {
  it('shows no English string of en.ts on sign-in, inbox, ticket, note and profile', async () => {
    expect(ENGLISH.length).toBeGreaterThan(150);
    // A German browser: the console follows navigator.languages until the agent picks a language.
    const context = await stack.browser.newContext({ locale: 'de-DE', viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${stack.api.url}/console/`);
    const found: string[] = [];
    const walk = async (screen: string) => {
      found.push(...(await englishOn(page)).map((f) => `${screen}: ${f}`));
      await page.screenshot({ path: `${SHOTS}de-${screen}.png`, fullPage: true });
    };

    await page.getByLabel('E-Mail').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await walk('sign-in');
    // A wrong password: the error shown is German too.
    await signInAs(page, { email: agent.email, password: 'falsches Passwort' });
    await page.locator('#signin-password-err').waitFor();
    await walk('sign-in-error');

    await signInAs(page, agent);
    await page.getByText('Zweite Anfrage').first().waitFor();
    await walk('inbox');
    await page.keyboard.press('?');
    await page.getByRole('dialog').waitFor();
    await walk('shortcuts');
    await page.keyboard.press('Escape');

    await page.goto(`${stack.api.url}/console/tickets/${ticketId}`);
    await page.getByRole('heading', { name: 'Der Deckel passt nicht' }).waitFor();
    await page.locator('.thread').getByText('Lager prüfen.').waitFor();
    await walk('ticket');
    await page.getByRole('radio', { name: de.noteTab }).check();
    await walk('ticket-note');

    await page.goto(`${stack.api.url}/console/profile`);
    await page.getByRole('button', { name: de.turnOn }).waitFor();
    await walk('profile');
    await page.getByRole('button', { name: de.turnOn }).click();
    await page.locator('#totp-code').waitFor();
    await walk('profile-totp');

    expect(found).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

/** The sign-in form by its German labels. */
async function signInAs(page: Page, who: { email: string; password: string }) {
  await page.getByLabel('E-Mail').fill(who.email);
  await page.getByLabel('Passwort', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
}
