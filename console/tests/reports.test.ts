import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

// The Reports screen against a real server: tickets seeded through the API today, the figures read
// off the page, a filter changed, a refused period shown at its field, the CSV downloaded, axe-clean.

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** axe-core's violations on the page, as "rule: target" (evaluated through the debugger, so the CSP allows it). */
async function axe(page: Page): Promise<string[]> {
  return page.evaluate(async (source) => {
    if (!('axe' in window)) (0, eval)(source);
    const w = window as unknown as {
      axe: {
        run(): Promise<{ passes: unknown[]; violations: { id: string; nodes: { target: string[] }[] }[] }>;
      };
    };
    const result = await w.axe.run();
    if (!result.passes.length) throw new Error('axe checked nothing');
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  }, axeSource);
}

let stack: Stack;
let agent: TestAgent;
const ok = async (path: string, json: unknown, key?: string) => {
  const res = await stack.api.call('POST', path, { json, ...(key ? { key } : {}) });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
};

beforeAll(async () => {
  stack = await startStack();
  // Any role may read reports: this agent is not an admin.
  agent = await makeAgent(stack, { role: 'agent' });
  await ok('/admin?r=categories', {
    categories: [
      { id: 'billing', name: 'Billing', fields: [] },
      { id: 'shipping', name: 'Shipping', fields: [] },
    ],
  });
  const paid = await createTicket(stack.api, { subject: 'Invoice twice', category: 'billing', email: 'p@example.com' });
  await createTicket(stack.api, { subject: 'Where is my parcel', category: 'shipping' });
  await createTicket(stack.api, { subject: 'Refund please', category: 'billing' });
  const parcel = (await stack.api.call('GET', '/list?category=shipping')).body.data[0];
  await ok('/reply', { ticket_id: paid.id, message: 'Refunded the second one.' });
  await ok('/status', { ticket_id: paid.id, status: 'closed' });
  await ok('/status', { ticket_id: parcel.id, status: 'pending' });
  await ok('/rate', { ticket_id: paid.id, email: paid.email, score: 5, comment: 'Quick and kind' }, stack.api.keys.pk);
});
afterAll(() => stack?.close());

const tile = (page: Page, label: string) =>
  page
    .locator('.tile', { has: page.locator('.tile-label', { hasText: new RegExp(`^${label}$`) }) })
    .locator('.tile-value');

describe('the Reports screen', () => {
  it('shows the figures, narrows them by a filter, shows a refused period at its field and downloads the CSV', async () => {
    const { page, errors, close } = await openConsole(stack);
    const chunks: string[] = [];
    page.on('request', (req) => chunks.push(new URL(req.url()).pathname));
    await signIn(page, agent);
    await page.getByRole('link', { name: 'Inbox' }).waitFor();
    // The screen's code is not part of the inbox's load: it is fetched when Reports is opened.
    expect(chunks.filter((p) => /\/assets\/Reports-/.test(p))).toEqual([]);
    await page.getByRole('link', { name: 'Reports' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/reports$/);
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    expect(chunks.some((p) => /\/assets\/Reports-.*\.js$/.test(p))).toBe(true);
    expect(await page.getByRole('link', { name: 'Reports' }).getAttribute('aria-current')).toBe('page');

    await expect.poll(() => tile(page, 'Opened').textContent()).toBe('3');
    expect(await tile(page, 'Closed').textContent()).toBe('1');
    expect(await tile(page, 'Customer satisfaction').textContent()).toBe('5 / 5');
    // The tables beside the charts: the totals of the per-day table, the backlog, the ratings.
    const days = page.getByRole('table', { name: 'Opened and closed per day' });
    expect(await days.locator('tbody tr').count()).toBe(30);
    expect(await days.locator('tfoot').textContent()).toBe('Total31');
    const backlog = page.getByRole('table', { name: 'Backlog by status' });
    expect(await backlog.locator('tbody tr').allTextContents()).toEqual(['Open1', 'Pending1', 'Answered0']);
    const csat = page.getByRole('table', { name: 'Customer satisfaction' });
    expect((await csat.locator('tbody tr').last().textContent())?.trim()).toBe('5 of 51');
    await page.getByText('Quick and kind').waitFor();
    // The charts are drawn, and left to the tables for screen readers.
    expect(await page.locator('svg.day-bars rect.opened').count()).toBe(30);
    expect(await page.locator('.day-chart[aria-hidden="true"] svg.chart').count()).toBe(1);
    expect(await page.locator('svg.chart[aria-hidden="true"]').count()).toBe(2); // CSAT and backlog
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}reports-1280.png`, fullPage: true });

    // A filter: only shipping.
    await page.getByLabel('Category').selectOption('shipping');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.url()).toMatch(/category=shipping/);
    await expect.poll(() => tile(page, 'Opened').textContent()).toBe('1');
    expect(await tile(page, 'Closed').textContent()).toBe('0');
    await page.getByText('No comments in this period.').waitFor();
    expect(await backlog.locator('tbody tr').allTextContents()).toEqual(['Open0', 'Pending1', 'Answered0']);

    // The CSV of what is shown, with the filter.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^report-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('date,opened,closed');
    expect(lines).toContain('category,shipping');
    expect(lines).toContain('opened,1');
    expect(lines).toContain('backlog_pending,1');

    // A period the wrong way round: the server's message under the From field, the figures kept.
    await page.getByLabel('From').fill('2026-12-31');
    await page.getByLabel('To', { exact: true }).fill('2026-12-01');
    await page.getByRole('button', { name: 'Show' }).click();
    const from = page.getByLabel('From');
    await expect.poll(() => from.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#report-from-err').textContent()).toBe('must not be after to (2026-12-01)');
    expect(await tile(page, 'Opened').textContent()).toBe('1');
    expect(errors).toEqual([]);
    await close();
  });

  it('reads well on a phone, in the dark and in German', async () => {
    const { page, errors, close } = await openConsole(stack, '/console/reports', 390);
    await signIn(page, agent);
    await expect.poll(() => tile(page, 'Opened').textContent()).toBe('3');
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}reports-390.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}reports-390-dark.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: `${SHOTS}reports-1280-dark.png`, fullPage: true });
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Berichte', level: 1 }).waitFor();
    expect(await tile(page, 'Eröffnet').textContent()).toBe('3');
    await page.getByRole('link', { name: 'CSV herunterladen' }).waitFor();
    await page.screenshot({ path: `${SHOTS}reports-1280-dark-de.png`, fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});
