import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { openConsole, signInWithKey, SHOTS, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await createTicket(stack.api, { subject: 'Where is my teapot?', name: 'Tea Drinker' });
});
afterAll(() => stack?.close());

describe('signing in to the console with a password', () => {
  it('the first admin signs in with the one-time password, must choose a new one, then works; sign-out ends the session', async () => {
    const text = await readFile(join(stack.api.dataDir, 'first-admin-password.txt'), 'utf8');
    const email = /^email: (\S+)$/m.exec(text)![1]!;
    const oneTime = /^password: (\S+)$/m.exec(text)![1]!;
    const { page, errors, close } = await openConsole(stack);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByText('The email or the password is wrong.')
      .or(page.locator('[aria-invalid="true"]'))
      .first()
      .waitFor();
    expect(await page.getByText('Where is my teapot?').count()).toBe(0);

    await page.getByLabel('Password', { exact: true }).fill(oneTime);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('my own console password');
    await page.getByLabel('Repeat the new password').fill('my own console password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Where is my teapot?').first().waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
      { name: 'ticketing_session', httpOnly: true, sameSite: 'Strict' },
    ]);
    // The cookie is out of the page's reach, and the session survives a reload.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.reload();
    await page.getByText('Where is my teapot?').first().waitFor();
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();
    // Dead on the server: the old cookie, sent again, is refused.
    const replay = await fetch(`${stack.api.base}/list`, {
      headers: { Cookie: `ticketing_session=${cookies[0]!.value}` },
    });
    expect(replay.status).toBe(401);
    expect(errors).toEqual([]);
    await close();
  });
});

describe('signing in to the console with a secret key', () => {
  it('refuses a public or unknown key next to the field, and lets nothing in', async () => {
    const { page, errors, close } = await openConsole(stack);
    for (const key of [stack.api.keys.pk, 'sk_live_nope']) {
      await signInWithKey(page, key);
      const field = page.getByLabel('Secret key');
      await page.getByText('This key is unknown, revoked or not a secret key.').waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByText('Where is my teapot?').count()).toBe(0);
    }
    await page.screenshot({ path: `${SHOTS}sign-in-error-1280.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it('lists the tickets, keeps the key for this tab across a reload, and forgets it on sign-out', async () => {
    const { page, errors, close } = await openConsole(stack);
    const sent: (string | undefined)[] = [];
    page.on('request', (r) => r.url().includes('/v1/list') && sent.push(r.headers().authorization));
    await signInWithKey(page, stack.api.keys.sk);
    await page.getByText('Where is my teapot?').first().waitFor();
    expect(sent[0]).toBe(`Bearer ${stack.api.keys.sk}`);
    await page.screenshot({ path: `${SHOTS}inbox-1280.png` });
    await page.reload();
    await page.getByText('Where is my teapot?').first().waitFor();
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByRole('button', { name: 'Use a secret key' }).waitFor(); // the password form first
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: 'Use a secret key' }).waitFor(); // the password form first
    expect(errors).toEqual([]);
    await close();
  });
});
