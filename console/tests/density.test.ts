import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, refusals, signIn, startStack, type Stack, type TestAgent } from './harness.js';

// The inbox at a glance (issue 30): compact rows (at least 12 ticket rows in a 1280×800 window,
// measured here) and saved views, both kept in the agent's profile on the server. Role `agent`.

const SHOT_DIR = process.env.TEAM_SHOTS ?? '/tmp';

let stack: Stack;
let grace: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  for (let i = 0; i < 24; i++)
    await createTicket(stack.api, { subject: `${i % 2 ? 'Kettle' : 'Parcel'} question ${i}`, name: `Customer ${i}` });
});
afterAll(() => stack?.close());

/** Ticket rows wholly inside the window. */
const rowsInView = (page: Page) =>
  page.locator('li.row').evaluateAll(
    (rows) =>
      rows.filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= 0 && b.bottom <= window.innerHeight && b.height > 0;
      }).length,
  );

describe('the inbox at a glance', () => {
  it('fits at least 12 rows when compact, and keeps saved views in the profile', async () => {
    const { page, errors, close } = await openConsole(stack, '/console/?view=open');
    await page.getByLabel('Email').waitFor();
    const refused = refusals(page);
    await signIn(page, grace);
    await page.locator('li.row').nth(20).waitFor();
    const comfortable = await rowsInView(page);
    await page.getByRole('button', { name: 'Compact rows' }).click();
    await page.locator('ul.rows.compact').waitFor();
    await expect.poll(() => rowsInView(page)).toBeGreaterThanOrEqual(12);
    const compact = await rowsInView(page);
    console.log(`rows in a 1280×800 window: comfortable ${comfortable}, compact ${compact}`);
    expect(compact).toBeGreaterThan(comfortable);
    await page.screenshot({ path: `${SHOT_DIR}/inbox-compact.png` });
    expect(await page.getByRole('button', { name: 'Compact rows' }).getAttribute('aria-pressed')).toBe('true');

    // A view kept under a name: the search text and the view, listed under the views, after a reload too.
    await page.goto(`${stack.api.url}/console/?view=open&q=Kettle`);
    await page.locator('li.row').first().waitFor();
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByLabel('Name of the view').fill('Kettles');
    await page.getByLabel('Name of the view').press('Enter');
    const saved = page.locator('nav.views').getByRole('link', { name: 'Kettles' });
    await saved.waitFor();
    await page.goto(`${stack.api.url}/console/`);
    await saved.waitFor();
    expect(await page.locator('ul.rows.compact').count()).toBe(1); // still compact after a reload
    await saved.click();
    await page.waitForURL(/q=Kettle/);
    await expect.poll(() => page.locator('li.row').count()).toBe(12);
    expect(await page.locator('li.row', { hasText: 'Parcel' }).count()).toBe(0);
    await page.waitForLoadState('networkidle').catch(() => {});
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
