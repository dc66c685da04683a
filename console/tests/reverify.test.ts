import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings, makeAgent, signIn, startStack, type Stack } from './harness.js';

// Issue 28: a session that has not checked the password in the last 10 minutes is asked for it before
// adding a passkey; the profile asks, shows a wrong password next to the field, and then finishes the
// action it held back. The server's clock is moved here, so the session ages without waiting.

let now = Date.now();
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ clock: () => new Date(now) });
});
afterAll(() => stack?.close());

describe('the profile’s re-check', () => {
  it('asks for the password when adding a passkey on an older session, then adds it', async () => {
    const agent = await makeAgent(stack);
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const url = new URL(stack.api.url);
    url.hostname = 'localhost'; // WebAuthn takes no IP address as the relying party id
    await page.goto(`${url.origin}/console/`);
    await signIn(page, agent);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByText('No passkeys yet.').waitFor();

    now += 11 * 60_000; // the agent stepped away; someone else at the desk tries to add a passkey
    await page.getByLabel('Name for the new passkey').fill('Desk');
    const held = page.waitForResponse((r) => r.url().endsWith('/v1/session/passkeys/options'));
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    expect((await held).status()).toBe(403);
    const check = page.getByRole('region', { name: 'Confirm it is you' });
    await check.waitFor();
    expect(await axeFindings(page)).toEqual([]);

    await check.getByLabel('Current password').fill('not the password');
    await check.getByRole('button', { name: 'Confirm and continue' }).click();
    await check.getByText('This is not your password.').waitFor();
    expect(await check.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    expect(stack.api.running.deps.configStore.get().agents.find((a) => a.id === agent.id)!.passkeys).toEqual([]);

    // The right password: the held action runs again by itself, and the passkey is added.
    await check.getByLabel('Current password').fill(agent.password);
    const added = page.waitForResponse(
      (r) => r.url().endsWith('/v1/session/passkeys') && r.request().method() === 'POST',
    );
    await check.getByRole('button', { name: 'Confirm and continue' }).click();
    expect((await added).status()).toBe(200);
    await page.getByText('Desk', { exact: true }).waitFor();
    expect(await page.getByRole('region', { name: 'Confirm it is you' }).count()).toBe(0);
    const stored = stack.api.running.deps.configStore.get().agents.find((a) => a.id === agent.id)!.passkeys;
    expect(stored.map((p) => p.name)).toEqual(['Desk']);
    // The session went on under a new id: the console still works without signing in again.
    await page.reload();
    await page.getByText('Desk', { exact: true }).waitFor();
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
