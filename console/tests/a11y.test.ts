import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, PNG_1PX } from '@ticketing/server/test-support';
import { axeFindings, makeAgent, openConsole, signIn, SHOTS, startStack, type Stack } from './harness.js';

let stack: Stack;
let ticketId: string;
beforeAll(async () => {
  stack = await startStack();
  // A ticket with what the thread draws: the customer's message and file, a reply, a note, tags.
  const form = new FormData();
  for (const [k, v] of Object.entries({
    name: 'Carla Customer',
    email: 'carla@example.com',
    subject: 'The lid does not fit',
    message: 'Photo attached.',
  }))
    form.append(k, v);
  form.append('attachments[]', new Blob([PNG_1PX], { type: 'image/png' }), 'lid.png');
  const created = await stack.api.call('POST', '/create', { key: stack.api.keys.pk, multipart: form });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  ticketId = created.body.id;
  await stack.api.call('POST', '/reply', { json: { ticket_id: ticketId, message: 'Which model is it?' } });
  await stack.api.call('POST', '/reply', { json: { ticket_id: ticketId, message: 'Check stock.', internal: true } });
  await stack.api.call('POST', '/tags', { json: { ticket_id: ticketId, add: ['vip'] } });
  await createTicket(stack.api, { subject: 'Second in the list', name: 'Dora Doe', priority: 'high' });
});
afterAll(() => stack?.close());

/** Every width and colour scheme a screen is checked in (the page is reused: resized, re-schemed). */
const VARIANTS = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 1280, height: 800, colorScheme: 'dark' },
  { width: 390, height: 844, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const;

/** axe on the screen as it is now, in each variant; a screenshot of each; every finding returned. */
async function everyVariant(page: Page, screen: string, ready?: () => Promise<unknown>) {
  const found: string[] = [];
  for (const v of VARIANTS) {
    await page.setViewportSize({ width: v.width, height: v.height });
    await page.emulateMedia({ colorScheme: v.colorScheme });
    await ready?.();
    const name = `${screen} ${v.width}px ${v.colorScheme}`;
    found.push(...(await axeFindings(page)).map((f) => `${name}: ${f}`));
    await page.screenshot({ path: `${SHOTS}a11y-${screen}-${v.width}-${v.colorScheme}.png` });
  }
  return found;
}

describe('axe finds nothing serious on any screen (WCAG 2.1 A/AA), wide and narrow, light and dark', () => {
  it('sign-in, inbox, ticket (thread, reply, note), profile with TOTP enrolment', async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack);
    const found: string[] = [];
    await page.getByLabel('Email').waitFor();
    // The check can fail: an unnamed button and pale text on white are caught, then removed again.
    await page.evaluate(() => {
      document.body.insertAdjacentHTML('beforeend', '<div id="bad"><button type="button"></button><p>pale</p></div>');
      // Through the CSSOM: the console's CSP refuses style attributes.
      const p = document.querySelector<HTMLElement>('#bad p')!;
      p.style.color = '#ccc';
      p.style.background = '#fff';
    });
    const bad = await axeFindings(page);
    expect(bad.some((f) => f.startsWith('button-name (critical): #bad'))).toBe(true);
    expect(bad.some((f) => f.startsWith('color-contrast (serious):') && f.includes('#cccccc'))).toBe(true);
    await page.evaluate(() => document.getElementById('bad')!.remove());
    found.push(...(await everyVariant(page, 'sign-in')));

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, agent);
    await page.getByText('Second in the list').first().waitFor();
    found.push(...(await everyVariant(page, 'inbox')));
    // Another view, with a search typed.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All/ }).click();
    await page.locator('#inbox-search').fill('lid');
    await expect.poll(() => page.locator('.inbox .total').textContent()).toBe('1 ticket');
    found.push(...(await everyVariant(page, 'inbox-all-search')));

    await page.goto(`${stack.api.url}/console/tickets/${ticketId}`);
    await page.getByRole('heading', { name: 'The lid does not fit' }).waitFor();
    await page.locator('.thread').getByText('Check stock.').waitFor();
    found.push(...(await everyVariant(page, 'ticket')));
    await page.getByRole('radio', { name: 'Internal note' }).check();
    await page.locator('#reply-text').fill('Half written');
    found.push(...(await everyVariant(page, 'ticket-note')));

    await page.goto(`${stack.api.url}/console/profile`);
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('#totp-code').waitFor();
    found.push(...(await everyVariant(page, 'profile-totp')));

    expect(found).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('the change-password screen of a first sign-in', async () => {
    const text = await readFile(join(stack.api.dataDir, 'first-admin-password.txt'), 'utf8');
    const admin = { email: /^email: (\S+)$/m.exec(text)![1]!, password: /^password: (\S+)$/m.exec(text)![1]! };
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    // With a field error shown, as the agent meets it.
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Repeat the new password').fill('different');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await everyVariant(page, 'change-password')).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
