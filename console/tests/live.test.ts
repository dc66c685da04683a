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

  it('sets an internal note apart in the thread, and the customer never sees it', async () => {
    const t = await createTicket(stack.api, { subject: 'Note me', name: 'Noted Customer', email: 'noted@example.com' });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'Note me' }).waitFor();
    await page.getByRole('radio', { name: 'Internal note' }).check();
    await page.locator('#reply-text').fill('Refund approved by finance, do not tell yet.');
    await page.getByRole('button', { name: 'Add note', exact: true }).click();
    const note = page.locator('.thread .msg-note');
    await note.getByText('Refund approved by finance, do not tell yet.').waitFor({ timeout: 15_000 });
    expect(await note.locator('.kind').textContent()).toBe('Internal note');
    // Set apart: not drawn as a support reply.
    expect(await page.locator('.thread .msg-support').count()).toBe(0);
    await note.screenshot({ path: `${SHOTS}live-note.png` });

    const staff = await stack.api.call('GET', `/ticket?id=${t.id}`);
    expect(staff.body.replies.map((r: { internal?: boolean; message: string }) => [r.internal, r.message])).toEqual([
      [true, 'Refund approved by finance, do not tell yet.'],
    ]);
    const customer = await stack.api.call('GET', `/ticket?id=${t.id}&email=noted%40example.com`, {
      key: stack.api.keys.pk,
    });
    expect(customer.status).toBe(200);
    expect(customer.body.replies).toEqual([]);
    expect(customer.text).not.toContain('Refund approved');
    expect(errors).toEqual([]);
    await close();
  });

  it('lists a new customer ticket under Needs reply, and drops it once the agent has replied', async () => {
    const t = await createTicket(stack.api, {
      subject: 'Waiting for us',
      name: 'Patient Customer',
      email: 'patient@example.com',
    });
    const { page, errors, close } = await openConsole(stack, '/console/?view=needs_reply');
    await signIn(page, agent);
    const list = page.getByRole('list', { name: 'Tickets' });
    await list.getByText('Waiting for us').waitFor();
    const before = Number(await viewCount(page, 'Needs reply'));
    expect(await list.locator('.row').count()).toBe(before);

    await list.getByText('Waiting for us').click();
    await page.getByRole('heading', { name: 'Waiting for us' }).waitFor();
    await page.locator('#reply-text').fill('We are on it.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await list.getByText('Waiting for us').waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => viewCount(page, 'Needs reply')).toBe(String(before - 1));
    expect(await list.locator('.row').count()).toBe(before - 1);
    const needs = await stack.api.call('GET', '/list?view=needs_reply');
    expect(needs.body.data.map((r: { id: string }) => r.id)).not.toContain(t.id);
    await page.screenshot({ path: `${SHOTS}live-needs-reply.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
