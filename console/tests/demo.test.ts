import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { openConsole, signIn, startStack, type Stack } from './harness.js';

// `pnpm demo` prints the demo agent's sign-in: a person types it into the console and is in.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ demo: true });
  await createTicket(stack.api, { subject: 'A lid for my teapot', name: 'Tea Drinker' });
});
afterAll(() => stack?.close());

describe('the demo', () => {
  it("signs in to the console with the printed email and password and shows the demo's tickets", async () => {
    const logs = stack.api.logs;
    const at = logs.findIndex((l) => l.startsWith('Support console:'));
    const email = /email:\s+(\S+)/.exec(logs[at + 1] ?? '')?.[1] ?? '';
    const password = /password:\s+(\S+)/.exec(logs[at + 2] ?? '')?.[1] ?? '';
    expect(email).toBe('demo@ticketing.localhost');
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, { email, password });
    await page.getByText('A lid for my teapot').first().waitFor();
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});
