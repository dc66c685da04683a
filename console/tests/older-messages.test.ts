import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
});
afterAll(() => stack?.close());

// Issue 33: a ticket of many replies opens with its opening message and its newest 50 replies; older
// ones load on request, instead of every reply on every read.
describe('a long thread in the console', () => {
  it('shows the opening message and the newest replies, and loads older ones on request', async () => {
    const t = await createTicket(stack.api, { subject: 'A long story', message: 'Where it all began.' });
    for (let i = 1; i <= 60; i++) {
      const res = await stack.api.call('POST', '/reply', {
        json: { ticket_id: t.id, message: `Reply number ${i}.`, from_customer: i % 2 === 0 },
      });
      expect(res.status).toBe(201);
    }
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText(/Sign out/).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${t.id}`);
    const thread = page.locator('.thread');
    await thread.getByText('Reply number 60.').waitFor();
    expect(await thread.getByText('Where it all began.').count()).toBe(1);
    // (The thread may first show what a live event brought: the newest page arrives a moment later.)
    await thread.getByText('Reply number 11.', { exact: true }).waitFor();
    expect(await thread.getByText('Reply number 10.', { exact: true }).count()).toBe(0);
    expect(await page.locator('.thread .msg').count()).toBe(51);

    await page.getByRole('button', { name: 'Show 10 older messages' }).click();
    await thread.getByText('Reply number 10.', { exact: true }).waitFor();
    expect(await page.locator('.thread .msg').count()).toBe(61);
    expect(await page.getByRole('button', { name: /older messages/ }).count()).toBe(0);
    // In order: the opening message, then reply 1 to 60.
    const texts = await page.locator('.thread .msg').allInnerTexts();
    expect(texts[0]).toContain('Where it all began.');
    expect(texts[1]).toContain('Reply number 1.');
    expect(texts[60]).toContain('Reply number 60.');

    // A reply sent from here keeps the older messages on screen.
    await page.getByRole('textbox', { name: /Reply/ }).first().fill('One more answer.');
    await page.keyboard.press('Control+Enter');
    await thread.getByText('One more answer.').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(100);
    expect(await thread.getByText('Reply number 1.', { exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
    await close();
  });
});
