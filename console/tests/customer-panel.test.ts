import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, refusals, signIn, startStack, type Stack, type TestAgent } from './harness.js';

// The customer panel beside a ticket (issue 30): the customer's other tickets as links with their
// numbers, the team's notes about the customer, added and changed by an agent with role `agent`;
// and initials avatars (colour from the agent's id) in the rows and the thread. No answer ≥ 400.

const SHOT_DIR = process.env.TEAM_SHOTS ?? '/tmp';

let stack: Stack;
let grace: TestAgent;
let kettle: { id: string; number: number };
let lid: { id: string; number: number };
beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  kettle = (await createTicket(stack.api, { subject: 'Broken kettle', email: 'mia@shop.example' })) as never;
  lid = (await createTicket(stack.api, { subject: 'Lid missing', email: 'Mia@shop.example' })) as never;
  await createTicket(stack.api, { subject: 'Someone else’s parcel', email: 'noah@shop.example' });
  const assigned = await stack.api.call('POST', '/assign', { json: { ticket_id: lid.id, agent_id: grace.id } });
  expect(assigned.status).toBe(200);
});
afterAll(() => stack?.close());

describe('the customer panel', () => {
  it('lists the customer’s other tickets and keeps the team’s notes, for role agent', async () => {
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${kettle.id}`);
    await page.getByLabel('Email').waitFor();
    const refused = refusals(page);
    await signIn(page, grace);
    await page.getByRole('heading', { name: 'Broken kettle' }).waitFor();
    const others = page.locator('section.others');
    const link = others.getByRole('link', { name: `#${lid.number} Lid missing` });
    await link.waitFor();
    expect(await others.getByRole('link').count()).toBe(1); // not Noah's, not this one

    const notes = page.locator('section.customer-notes');
    await notes.getByText('No notes yet.').waitFor();
    await notes.getByLabel('Add a note about the customer').fill('Prefers phone calls.');
    await notes.getByRole('button', { name: 'Save note' }).click();
    await notes.getByText('Prefers phone calls.').waitFor();
    await notes.getByRole('button', { name: 'Edit' }).click();
    await notes.getByLabel('Change the note').fill('Prefers phone calls after 5 pm.');
    await notes.getByRole('button', { name: 'Save note' }).click();
    await notes.getByText('Prefers phone calls after 5 pm.').waitFor();
    const stored = (await stack.api.call('GET', '/customers?email=mia@shop.example')).body.notes;
    expect(stored).toMatchObject([{ text: 'Prefers phone calls after 5 pm.', author_id: grace.id }]);

    // The other ticket shows the same notes; its row and its thread show Grace's initials.
    await link.click();
    await page.getByRole('heading', { name: 'Lid missing' }).waitFor();
    await page.locator('section.customer-notes').getByText('Prefers phone calls after 5 pm.').waitFor();
    await page.locator('#reply-text').fill('A new lid is on its way.');
    await page.getByRole('button', { name: /^Send/ }).click();
    const threadAvatar = page.locator('.msg .avatar').first();
    await threadAvatar.waitFor({ timeout: 20_000 });
    expect(await threadAvatar.textContent()).toBe('GH');
    const threadColour = await threadAvatar.evaluate((el) => getComputedStyle(el).backgroundColor);
    // Answered, the ticket left Needs reply: it is under Open.
    await page.locator('nav.views a', { hasText: 'Open' }).first().click();
    const rowAvatar = page.locator('li.row', { hasText: 'Lid missing' }).locator('.avatar');
    await rowAvatar.waitFor();
    expect(await rowAvatar.textContent()).toBe('GH');
    const rowColour = await rowAvatar.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(rowColour).toBe(threadColour); // the same agent, the same colour
    expect(rowColour).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({ path: `${SHOT_DIR}/customer-panel.png` });

    await page.waitForLoadState('networkidle').catch(() => {});
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
