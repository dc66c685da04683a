import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent, openConsole, signIn, startStack, type Stack } from './harness.js';

// An agent's own profile in the console (issue 30), as role agent: name, signature, availability.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('the profile screen', () => {
  it('lets an agent set their name, a signature under their replies, and whether they take new tickets', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack, '/console/profile');
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'About you' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Grace H.');
    await page.getByLabel('Signature (Markdown, added under your replies)').fill('Grace\nShop support');
    await page.getByLabel('Available: round-robin assignment gives me new tickets').uncheck();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Your profile is saved.').waitFor();
    const session = await page.evaluate(() => fetch('/v1/session').then((r) => r.json()));
    expect(session.agent).toMatchObject({ name: 'Grace H.', signature: 'Grace\nShop support', available: false });
    expect(errors).toEqual([]);
    await close();
  });
});
