import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { deliver, SUPPORT } from '@ticketing/server/test-support/mail-in';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack({ mail: true });
  agent = await makeAgent(stack);
});
afterAll(() => stack?.close());

// Issue 29: the quoted part of a mail is set aside from the message, and the console shows it under
// the message collapsed ("Show quoted text"), as mail clients do; nothing of the mail is lost.
const ANSWER = 'The order number is 4711.';
const QUESTION = 'Could you tell us your order number?';
const QUOTE = `On Mon, Nov 23, 2026 at 11:00 AM Shop Support <${SUPPORT}> wrote:\n> ${QUESTION}`;

describe('the quoted part of a mail in the console', () => {
  it('is collapsed under the message and opens to show the quote', async () => {
    // A customer writes in by mail, quoting an earlier mail of ours; a ticket made by the API quotes nothing.
    const other = await createTicket(stack.api, { subject: 'Another question', email: 'ada@example.com' });
    const outcome = await deliver(stack.api, stack.mailPort!, {
      from: 'Ada Lovelace <ada@example.com>',
      to: SUPPORT,
      subject: 'Where is my order',
      text: `${ANSWER}\n\n${QUOTE}\n`,
    });
    expect(outcome.kind).toBe('created');
    const id = (outcome as { ticket: string }).ticket;
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText(/Sign out/).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${other.id}`);
    await page.locator('.msg-customer').first().waitFor();
    expect(await page.locator('details.quoted').count()).toBe(0);
    await page.goto(`${stack.api.url}/console/tickets/${id}`);
    const message = page.locator('.msg-customer').filter({ hasText: ANSWER });
    await message.waitFor();
    const quoted = message.locator('details.quoted');
    expect(await quoted.count()).toBe(1);
    // Closed at first: the answer is on screen, the quote is not.
    expect(await quoted.getAttribute('open')).toBeNull();
    const quote = quoted.locator('.plain');
    expect(await quote.isVisible()).toBe(false);
    expect(await message.locator(':scope > .plain').innerText()).toBe(ANSWER);
    // Opened by its summary (a keyboard or a click), the quote reads as the mail had it.
    await quoted.getByText('Show quoted text').click();
    await quote.waitFor({ state: 'visible' });
    expect(await quote.innerText()).toContain(`> ${QUESTION}`);
    // The original mail stays downloadable beside it.
    expect(await message.getByRole('link', { name: 'Download original-mail.eml' }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}quoted-text.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
