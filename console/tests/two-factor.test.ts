import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeAgent, openConsole, signIn, startStack, type Stack } from './harness.js';

// Two-factor sign-in as an agent meets it: turn it on from the profile with the secret the page shows
// and a code an authenticator app would make from it (RFC 6238, computed here as the app would), keep
// the recovery codes, sign in again with a code, refuse a wrong one at its field, and sign in once with
// a recovery code, which then no longer works.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** The 6-digit TOTP code of a base32 secret for the 30-second step `step` (SHA-1, as the QR code says). */
function totp(secret: string, step: number): string {
  let bits = '';
  for (const c of secret.replace(/[\s=]/g, '').toUpperCase()) bits += BASE32.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(
    bits
      .slice(0, bits.length - (bits.length % 8))
      .match(/.{8}/g)!
      .map((b) => parseInt(b, 2)),
  );
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const at = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}
const stepNow = () => Math.floor(Date.now() / 30_000);

async function signOut(page: Page) {
  await page.getByRole('button', { name: /^Sign out/ }).click();
  await page.getByLabel('Email').waitFor();
}

describe('two-factor authentication in the console', () => {
  it('is turned on from the profile, then asks for a code at sign-in, and takes a recovery code once', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack, '/console/profile');
    await signIn(page, agent);
    await page.getByRole('button', { name: 'Turn on' }).click();
    const secret = (await page.locator('code.secret').textContent())!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    // The QR code is there for the phone, with a text alternative.
    expect(await page.getByRole('img', { name: 'QR code for your authenticator app' }).count()).toBe(1);

    await page.getByLabel('Code').fill(totp(secret, stepNow()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = await page.locator('ul.codes code').allTextContents();
    expect(codes).toHaveLength(10);
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByText('Two-factor authentication is on.').waitFor();

    // Signing in now takes a second step; a wrong code is refused beside its field.
    await signOut(page);
    await signIn(page, agent);
    const code = page.getByLabel('Code');
    await code.waitFor();
    await code.fill('000000' === totp(secret, stepNow()) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByText('That code is not right. Codes change every 30 seconds.').waitFor();
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    // The code of the next step (an authenticator a little ahead; the one used to enrol is spent).
    await code.fill(totp(secret, stepNow() + 1));
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByRole('link', { name: 'Inbox' }).waitFor();

    // A recovery code signs in once.
    await signOut(page);
    await signIn(page, agent);
    await page.getByLabel('Code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByRole('link', { name: 'Inbox' }).waitFor();
    await signOut(page);
    await signIn(page, agent);
    await page.getByLabel('Code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByText('That code is not right. Codes change every 30 seconds.').waitFor();
    expect(await page.getByRole('link', { name: 'Inbox' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });
});
