import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  await createTicket(stack.api, { subject: 'Already here', name: 'First Customer' });
});
afterAll(() => stack?.close());

/** The count a view's link in the side bar shows. */
const viewCount = (page: import('playwright-core').Page, name: string) =>
  page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link', { name: new RegExp(`^${name}`) })
    .locator('.count')
    .textContent();

describe('the console live against the real server', () => {
  it('shows a new ticket in the open inbox, a customer reply in the open thread, and new counts, without a reload', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText('Already here').first().waitFor();
    expect(await viewCount(page, 'All')).toBe('1');

    const t = await createTicket(stack.api, {
      subject: 'Arrived while watching',
      name: 'Live Customer',
      email: 'live@example.com',
    });
    await page.getByText('Arrived while watching').first().waitFor({ timeout: 2000 });
    await expect.poll(() => viewCount(page, 'All'), { timeout: 2000 }).toBe('2');
    await expect.poll(() => viewCount(page, 'Needs reply'), { timeout: 2000 }).toBe('2');
    await page.screenshot({ path: `${SHOTS}live-inbox.png` });

    await page.getByText('Arrived while watching').first().click();
    await page.waitForURL(`**/console/tickets/${t.id}`);
    await page.getByRole('heading', { name: 'Arrived while watching' }).waitFor();
    const res = await stack.api.call('POST', '/reply', {
      key: stack.api.keys.pk,
      json: { ticket_id: t.id, email: 'live@example.com', message: 'Any news about my parcel?' },
    });
    expect(res.status).toBe(201);
    await page.locator('.thread').getByText('Any news about my parcel?').waitFor({ timeout: 2000 });
    await page.screenshot({ path: `${SHOTS}live-thread.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
