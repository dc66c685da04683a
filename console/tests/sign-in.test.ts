import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  await createTicket(stack.api, { subject: 'Where is my teapot?', name: 'Tea Drinker' });
});
afterAll(() => stack?.close());

describe('signing in to the console with email and password', () => {
  it('refuses a wrong password next to the field, and lets nothing in', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, { email: agent.email, password: 'not the password' });
    await page.getByText('The email or the password is wrong.').waitFor();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Where is my teapot?').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}sign-in-error-1280.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it('lists the tickets, stays signed in across a reload, and stays signed out after sign-out', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText('Where is my teapot?').first().waitFor();
    await page.screenshot({ path: `${SHOTS}inbox-1280.png` });
    await page.reload();
    await page.getByText('Where is my teapot?').first().waitFor();
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();
    await page.reload();
    await page.getByLabel('Email').waitFor();
    expect(await page.getByText('Where is my teapot?').count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });
});
