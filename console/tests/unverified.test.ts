import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
});
afterAll(() => stack?.close());

describe('an unverified mail in the console (issue 28)', () => {
  it('is marked in the thread as a mail that only claims to be the customer’s', async () => {
    const t = await createTicket(stack.api, { subject: 'Refund please', name: 'Ada', email: 'ada@customer.example' });
    // What mail in stores for a forged reply (server/src/inbound/verify-sender.test.ts sends one over
    // SMTP); put in the store directly here, since this test is about how the console shows it.
    await stack.api.running.deps.tickets.live.update(t.id, (current) => ({
      ticket: {
        ...current,
        replies: [
          ...current.replies,
          {
            id: 'rpl_unverifiedForgery0001',
            message: 'Send the refund to IBAN DE02 1203 0000 0000 2020 51.',
            from_customer: true,
            author: 'Ada',
            created_at: new Date().toISOString(),
            attachments: [],
            unverified: true as const,
          },
        ],
      },
    }));
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'Refund please' }).waitFor();
    const forged = page.locator('.thread .msg-unverified');
    await forged.getByText('Send the refund to IBAN').waitFor();
    expect(await forged.locator('.kind').textContent()).toBe('Unverified sender');
    expect(await forged.getByRole('note').textContent()).toContain(
      'this mail claims to be from ada@customer.example but could not be verified',
    );
    // The customer's own messages carry no such mark.
    expect(await page.locator('.thread .msg-customer .msg-warning').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}unverified-thread.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
