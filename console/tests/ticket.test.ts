import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let hostile: string;
let agent: TestAgent;
const SUBJECT = '<img src=x onerror="window.pwned=1"> Broken kettle';
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  await createTicket(stack.api, { subject: 'An older question', name: 'Old Customer' });
  const t = await createTicket(stack.api, {
    subject: SUBJECT,
    name: 'Mallory <b>',
    message: 'It broke. <script>window.pwned=2</script><img src=x onerror="window.pwned=3">',
  });
  hostile = t.id;
});
afterAll(() => stack?.close());

const ticket = async (id: string) => (await stack.api.call('GET', `/ticket?id=${id}`)).body;

describe('working a ticket in the console', () => {
  it('opens a ticket by keyboard, shows hostile text as text, replies, changes status and priority, closes with e', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText('Broken kettle').first().waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/console/tickets/${hostile}`);
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    await page.getByText('It broke. <script>window.pwned=2</script>', { exact: false }).first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.screenshot({ path: `${SHOTS}ticket-1280.png` });

    await page.keyboard.press('r');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('reply-text');
    await page.keyboard.type('We are sending a new kettle.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('We are sending a new kettle.').first().waitFor();
    await expect.poll(async () => (await ticket(hostile)).replies.length, { timeout: 15_000 }).toBe(1);
    expect((await ticket(hostile)).replies[0].message).toBe('We are sending a new kettle.');
    // Sent with the agent's session: the reply carries the agent's name.
    expect((await ticket(hostile)).replies[0].author).toBe(agent.name);

    await page.locator('.props-bar').getByLabel('Status').selectOption('pending');
    await expect.poll(async () => (await ticket(hostile)).status).toBe('pending');
    await page.locator('.props-bar').getByLabel('Priority').selectOption('urgent');
    await expect.poll(async () => (await ticket(hostile)).priority).toBe('urgent');

    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('e');
    await expect.poll(async () => (await ticket(hostile)).status).toBe('closed');
    expect(errors).toEqual([]);
    await close();
  });

  it('keeps a reply draft across a reload', async () => {
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${hostile}`);
    await signIn(page, agent);
    await page.locator('#reply-text').fill('Half a thought');
    await page.reload();
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    expect(await page.locator('#reply-text').inputValue()).toBe('Half a thought');
    expect(errors).toEqual([]);
    await close();
  });

  it("shows the server's refusal next to the reply box and keeps the text", async () => {
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${hostile}`);
    await signIn(page, agent);
    const tooLong = 'x'.repeat(50_001); // docs/api.md: message 1-50,000
    await page.locator('#reply-text').fill(tooLong);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const err = page.locator('#reply-err');
    await err.waitFor();
    expect(await err.textContent()).toMatch(/^Not sent: .+Your text is still here\.$/);
    expect(await page.locator('#reply-text').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#reply-text').inputValue()).toBe(tooLong);
    expect((await ticket(hostile)).replies.length).toBe(1);
    expect(errors).toEqual([]);
    await close();
  });

  it('fits a phone: one column, the ticket readable at 390 px', async () => {
    const { page, errors, close } = await openConsole(stack, '/console/', 390);
    await signIn(page, agent);
    await page.getByText('An older question').first().waitFor();
    await page.screenshot({ path: `${SHOTS}inbox-390.png` });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.goto(`${stack.api.url}/console/tickets/${hostile}`);
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    await page.screenshot({ path: `${SHOTS}ticket-390.png`, fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});
