import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { openConsole, signInWithKey, SHOTS, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await createTicket(stack.api, { subject: 'Where is my teapot?', name: 'Tea Drinker' });
});
afterAll(() => stack?.close());

describe('signing in to the console with a secret key (main has no session sign-in yet)', () => {
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
    await page.getByLabel('Secret key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.reload();
    await page.getByLabel('Secret key').waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});
