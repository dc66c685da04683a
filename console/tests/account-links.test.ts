import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '@ticketing/server/test-support/smtp';
import { makeAgent, openConsole, startStack, type Stack } from './harness.js';

// "Forgot password?" and the mailed links in the browser (issue 30), signed in afterwards as role agent.

let stack: Stack;
let smtp: TestSmtp;
beforeAll(async () => {
  stack = await startStack();
  smtp = await startSmtp();
  const res = await stack.api.call('POST', '/admin?r=mail', {
    json: { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', port: smtp.port } },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await stack.close();
  await smtp.close();
});

const tokenIn = (text: string, kind: string) => new RegExp(`/console/${kind}/([A-Za-z0-9]+)`).exec(text)![1]!;

describe('forgotten passwords and invitations in the console', () => {
  it('asks for a reset link from the sign-in page, opens it, sets a password and lands in the inbox', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack, '/console/sign-in');
    await page.getByText('Ticketing', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email').fill(agent.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').waitFor();
    const [mail] = await smtp.waitFor(1);
    const token = tokenIn(mail!.text, 'reset');

    await page.goto(`${stack.api.url}/console/reset/${token}`);
    await page.getByLabel('New password', { exact: true }).fill('a new passphrase 42');
    await page.getByLabel('Repeat the new password', { exact: true }).fill('a new passphrase 42');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/$/);
    await page.locator('header').waitFor();
    const session = await page.evaluate(() => fetch('/v1/session').then((r) => r.json()));
    expect(session.agent).toMatchObject({ email: agent.email, role: 'agent' });

    // The link is spent: opened again it says so.
    await page.goto(`${stack.api.url}/console/reset/${token}`);
    await page.getByLabel('New password', { exact: true }).fill('yet another phrase');
    await page.getByLabel('Repeat the new password', { exact: true }).fill('yet another phrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('expired or was used already').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('an invited agent chooses their password from the mailed link', async () => {
    const made = await stack.api.call('POST', '/admin?r=agents', {
      json: { name: 'Linus', email: 'linus@shop.example', role: 'agent', invite: true },
    });
    expect(made.status).toBe(201);
    const mail = (await smtp.waitFor(2)).find((m) => m.to.includes('linus@shop.example'))!;
    const { page, errors, close } = await openConsole(stack, `/console/invite/${tokenIn(mail.text, 'invite')}`);
    await page.getByRole('heading', { name: 'Welcome: choose your password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('linus chose this');
    await page.getByLabel('Repeat the new password', { exact: true }).fill('linus chose this');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/$/);
    await page.locator('header').waitFor();
    const session = await page.evaluate(() => fetch('/v1/session').then((r) => r.json()));
    expect(session.agent).toMatchObject({ email: 'linus@shop.example', role: 'agent' });
    expect(errors).toEqual([]);
    await close();
  });
});
