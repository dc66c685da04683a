import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import type { Page } from 'playwright-core';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack } from './harness.js';

// The sign-in as an agent meets it, in Chromium against the real server. Every test has an agent of its
// own: the server counts failed sign-ins per email (and per address: fewer than 20 in this file).

let stack: Stack;
let ticketId: string;
beforeAll(async () => {
  stack = await startStack();
  ticketId = (await createTicket(stack.api, { subject: 'Where is my teapot?', name: 'Tea Drinker' })).id;
});
afterAll(() => stack?.close());

const SUBJECT = 'Where is my teapot?';
const COOKIE = 'ticketing_session';

/** Submits the form and waits for the server's answer to POST /v1/session. */
async function submitted(page: Page, agent: { email: string; password: string }) {
  const answer = page.waitForResponse((r) => r.url().endsWith('/v1/session') && r.request().method() === 'POST');
  await signIn(page, agent);
  return answer;
}

describe('signing in to the console with email and password', () => {
  it('refuses a wrong password next to the field, and lets nothing in', async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack);
    expect((await submitted(page, { email: agent.email, password: 'not the password' })).status()).toBe(401);
    const field = page.getByLabel('Password', { exact: true });
    await page.getByText('The email or the password is wrong.').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // The message is the field's description: a screen reader reads it with the field.
    const described = await field.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described?.split(' ').join('"], [id="')}"]`).allTextContents()).toContain(
      'The email or the password is wrong.',
    );
    expect(await page.getByText(SUBJECT).count()).toBe(0);
    expect(await page.context().cookies()).toEqual([]);
    await page.screenshot({ path: `${SHOTS}sign-in-error-1280.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it('keeps the session in an HttpOnly cookie that page JS cannot read, across a reload', async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack);
    expect((await submitted(page, agent)).status()).toBe(200);
    await page.getByText(SUBJECT).first().waitFor();
    await page.screenshot({ path: `${SHOTS}inbox-1280.png` });
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([[COOKIE, true, 'Strict']]);
    expect(await page.evaluate(() => document.cookie)).not.toContain(COOKIE);
    await page.reload();
    await page.getByText(SUBJECT).first().waitFor();
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    expect(await page.getByLabel('Email').count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it("sends the session's CSRF token with a POST it makes", async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${ticketId}`);
    const token = ((await (await submitted(page, agent)).json()) as { csrf_token: string }).csrf_token;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    const post = page.waitForRequest((r) => r.url().endsWith('/v1/status') && r.method() === 'POST');
    await page.locator('.props-bar').getByLabel('Status').selectOption('pending');
    expect((await post).headers()['x-csrf-token']).toBe(token);
    await expect.poll(async () => (await stack.api.call('GET', `/ticket?id=${ticketId}`)).body.status).toBe('pending');
    expect(errors).toEqual([]);
    await close();
  });

  it('signs out to the sign-in form, ends the session on the server, and stays signed out on a reload', async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack);
    await submitted(page, agent);
    await page.getByText(SUBJECT).first().waitFor();
    const old = (await page.context().cookies()).find((c) => c.name === COOKIE)!.value;
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();
    expect(await page.context().cookies()).toEqual([]);
    // The old cookie, replayed, no longer opens anything.
    const replay = await stack.api.call('GET', '/session', { key: null, headers: { Cookie: `${COOKIE}=${old}` } });
    expect(replay.status).toBe(401);
    await page.reload();
    await page.getByLabel('Email').waitFor();
    expect(await page.getByText(SUBJECT).count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it('leads the first admin, signed in with the one-time password of the first start, to choose their own, then into the inbox', async () => {
    // Where the first start put it when its output was not a terminal (boot.ts), as an owner finds it.
    const text = await readFile(join(stack.api.dataDir, 'first-admin-password.txt'), 'utf8');
    const agent = { email: /^email: (\S+)$/m.exec(text)![1]!, password: /^password: (\S+)$/m.exec(text)![1]! };
    const { page, errors, close } = await openConsole(stack);
    expect((await submitted(page, agent)).status()).toBe(200);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await page.getByText(SUBJECT).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}change-password-1280.png` });
    const fresh = 'a kettle of my own choosing';
    await page.getByLabel('New password', { exact: true }).fill(fresh);
    await page.getByLabel('Repeat the new password').fill(fresh);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(SUBJECT).first().waitFor();
    const stored = stack.api.running.deps.configStore.get().agents.find((a) => a.email === agent.email)!;
    expect(stored.must_change_password).toBe(false);
    // The new password is the one that works now.
    const again = async (password: string) =>
      (await stack.api.call('POST', '/session', { key: null, json: { email: agent.email, password } })).status;
    expect(await again(agent.password)).toBe(401);
    expect(await again(fresh)).toBe(200);
    expect(errors).toEqual([]);
    await close();
  });

  it('after 5 wrong passwords says how long to wait, and then refuses even the right one', async () => {
    const agent = await makeAgent(stack);
    const { page, errors, close } = await openConsole(stack);
    for (let i = 0; i < 5; i++)
      expect((await submitted(page, { email: agent.email, password: `wrong password ${i}` })).status()).toBe(401);
    const locked = await submitted(page, agent);
    expect(locked.status()).toBe(429);
    expect(Number(locked.headers()['retry-after'])).toBeGreaterThan(14 * 60);
    await page.getByRole('alert').getByText('Too many attempts. Try again in 15 min.').waitFor();
    expect(await page.getByText(SUBJECT).count()).toBe(0);
    expect(await page.context().cookies()).toEqual([]);
    await page.screenshot({ path: `${SHOTS}sign-in-locked-1280.png` });
    expect(errors).toEqual([]);
    await close();
  });
});
