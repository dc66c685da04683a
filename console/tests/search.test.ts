import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

// The search box searches every ticket (issue 30): a closed ticket is found from Needs reply, by a
// word of its message and by its number, and rows and the ticket header show the number.

let stack: Stack;
let agent: TestAgent;
let closed: { id: string; [k: string]: any };
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  await createTicket(stack.api, { subject: 'Where is my parcel', name: 'Open Customer' });
  closed = await createTicket(stack.api, {
    subject: 'Kitchen trouble',
    message: 'The dishwasher floods the floor.',
    name: 'Closed Customer',
  });
  await stack.api.call('POST', '/status', { json: { ticket_id: closed.id, status: 'closed' } });
});
afterAll(() => stack?.close());

describe('the search box', () => {
  it('finds a closed ticket from Needs reply, by a word and by its number', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText('Where is my parcel').first().waitFor();
    expect(await page.locator('.inbox .row .number').first().textContent()).toBe('#1001');
    await page.locator('#inbox-search').fill('dishwash');
    await page.getByText('Kitchen trouble').first().waitFor();
    await expect.poll(() => page.locator('.inbox .total').textContent()).toBe('1 ticket');
    await page.locator('#inbox-search').fill(`#${closed.number}`);
    await expect.poll(() => page.locator('.inbox .row .number').allTextContents()).toEqual(['#1002']);
    await page.getByText('Kitchen trouble').first().click();
    await page.waitForURL(`**/console/tickets/${closed.id}**`);
    await expect.poll(() => page.locator('.ticket-head .number').textContent()).toBe('#1002');
    await page.screenshot({ path: `${SHOTS}search-number.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
