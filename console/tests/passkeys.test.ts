import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { makeAgent, signIn, SHOTS, startStack, type Stack } from './harness.js';

// Passkeys as an agent meets them, in Chromium against the real server, with Chromium's virtual
// authenticator (a platform authenticator that keeps discoverable credentials and verifies the user).

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

/**
 * The console at `localhost` (WebAuthn takes no IP address as the relying party id), with a virtual
 * authenticator in its tab.
 */
async function openWithAuthenticator() {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
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
  url.hostname = 'localhost';
  const base = url.origin;
  await page.goto(`${base}/console/`);
  return { page, cdp, authenticatorId, base, errors, close: () => context.close() };
}

const answerTo = (page: Page, path: string) =>
  page.waitForResponse((r) => r.url().endsWith(`/v1${path}`) && r.request().method() === 'POST');

async function credentials(cdp: CDPSession, authenticatorId: string) {
  return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
}

describe('passkeys in the console', () => {
  it('adds a passkey from the profile, signs in with it alone, and no longer once it is removed', async () => {
    const agent = await makeAgent(stack);
    const { page, cdp, authenticatorId, errors, close } = await openWithAuthenticator();
    await signIn(page, agent);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();

    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    await page.getByLabel('Name for the new passkey').fill('Work laptop');
    const added = answerTo(page, '/session/passkeys');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    expect((await added).status()).toBe(200);
    await page.getByText('Work laptop', { exact: true }).waitFor();
    // The authenticator keeps a discoverable credential whose user handle is the agent's id.
    const [credential] = await credentials(cdp, authenticatorId);
    expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    expect(Buffer.from(credential!.userHandle!, 'base64').toString()).toBe(agent.id);
    await page.screenshot({ path: `${SHOTS}profile-passkey-1280.png` });

    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();
    expect(await page.context().cookies()).toEqual([]);

    // No email, no password: the passkey alone.
    const signedIn = answerTo(page, '/session/passkey');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const answer = await signedIn;
    expect(answer.status()).toBe(200);
    expect(((await answer.json()) as { agent: { id: string } }).agent.id).toBe(agent.id);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    expect((await page.context().cookies()).map((c) => c.name)).toEqual(['ticketing_session']);
    // The signature counter the server keeps is the authenticator's.
    const [used] = await credentials(cdp, authenticatorId);
    const stored = stack.api.running.deps.configStore.get().agents.find((a) => a.id === agent.id)!.passkeys;
    expect(stored.map((p) => [p.id, p.counter, p.name])).toEqual([
      [Buffer.from(used!.credentialId, 'base64').toString('base64url'), used!.signCount, 'Work laptop'],
    ]);

    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();

    // The authenticator still holds the credential, but the server no longer knows it.
    expect(await credentials(cdp, authenticatorId)).toHaveLength(1);
    const refused = answerTo(page, '/session/passkey');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const no = await refused;
    expect(no.status()).toBe(401);
    expect(((await no.json()) as { error: { code: string } }).error.code).toBe('invalid_passkey');
    await page.getByRole('alert').waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.getByRole('button', { name: /Sign out/ }).count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it('refuses an answer of the authenticator sent a second time (its challenge was used)', async () => {
    const agent = await makeAgent(stack);
    const { page, base, errors, close } = await openWithAuthenticator();
    await signIn(page, agent);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    await page.getByRole('link', { name: 'Profile' }).click();
    const added = answerTo(page, '/session/passkeys');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    expect((await added).status()).toBe(200);
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByLabel('Email').waitFor();

    // The console's passkey sign-in, its answer caught on the way to the server.
    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/session/passkey') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const body = (await sent).postData()!;
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    const again = await fetch(`${base}/v1/session/passkey`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: base },
      body,
    });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('invalid_passkey');
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(errors).toEqual([]);
    await close();
  });
});
