import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeAgent, openConsole, SHOTS, signIn, startStack, type Stack } from './harness.js';

// The people and access screens of Settings: agents (invitations with a one-time password, roles,
// deactivation, deletion, the last admin kept), API keys (made, used, revoked while the server runs),
// verified customers (the identity secret and snippet) and the knowledge base (editor, preview, search).
// axe-core as the demo site's tests load it (one copy in the workspace).
const axeSource = (
  createRequire(new URL('../../demo-site/package.json', import.meta.url))('axe-core') as { source: string }
).source;

describe('settings: people, keys, identity, knowledge base', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  type AgentRow = { id: string; email: string; role: string; active: boolean; must_change_password: boolean };
  const storedAgents = async () => (await stack.api.call('GET', '/admin?r=agents')).body.agents as AgentRow[];

  /** axe-core on the open settings screen: the violations, as rule id and where. */
  async function axe(page: Page): Promise<string[]> {
    // Through the debugger, not a <script>: the console's CSP allows no inline script (rightly).
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
    return page.evaluate(async () => {
      const run = (window as unknown as { axe: { run: (ctx: unknown) => Promise<any> } }).axe.run;
      const result = await run({ include: [['.settings-main']] });
      return (result.violations as { id: string; nodes: { target: string[] }[] }[]).flatMap((v) =>
        v.nodes.map((n) => `${v.id} ${n.target.join(' ')}`),
      );
    });
  }

  /** Screenshots of a screen at a desktop and a phone width, light and dark, for a look before reporting. */
  async function shots(page: Page, name: string) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width > 600 ? 800 : 844 });
        await page.screenshot({ path: `${SHOTS}settings-${name}-${width}-${scheme}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
  }

  test('agents: an invited agent signs in with the shown password and must change it; role, deactivation, deletion', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/agents');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('row', { name: new RegExp(admin.email) }).waitFor();

    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@shop.example');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const shown = page.locator('.once code');
    await shown.waitFor();
    const password = (await shown.textContent())!;
    expect(password).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    const ada = (await storedAgents()).find((a) => a.email === 'ada@shop.example')!;
    expect(ada).toMatchObject({ role: 'agent', active: true, must_change_password: true });
    await page
      .getByRole('row', { name: /ada@shop\.example/ })
      .getByText('One-time password', { exact: true })
      .waitFor();
    expect(await axe(page)).toEqual([]);
    await shots(page, 'agents');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.once').count()).toBe(0);

    // Ada, in a browser of her own: signs in with the password and is asked to choose hers first.
    const other = await openConsole(stack);
    await signIn(other.page, { email: 'ada@shop.example', password });
    await other.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await other.page.getByLabel('Current password').fill(password);
    await other.page.getByLabel('New password', { exact: true }).fill('ada’s very own password');
    await other.page.getByLabel('Repeat the new password').fill('ada’s very own password');
    await other.page.getByRole('button', { name: 'Change password' }).click();
    await other.page.getByRole('link', { name: 'Inbox' }).waitFor();
    expect((await storedAgents()).find((a) => a.id === ada.id)!.must_change_password).toBe(false);
    await other.close();

    // Role and deactivation, one click each, stored at once.
    await page.getByLabel('Role of Ada Lovelace').selectOption('admin');
    await expect.poll(async () => (await storedAgents()).find((a) => a.id === ada.id)!.role).toBe('admin');
    await page.getByRole('button', { name: 'Deactivate: Ada Lovelace' }).click();
    await page.getByRole('button', { name: 'Reactivate: Ada Lovelace' }).waitFor();
    expect((await storedAgents()).find((a) => a.id === ada.id)!.active).toBe(false);

    // A lost authenticator: an admin resets an agent's two-factor.
    const lost = await makeAgent(stack, { role: 'agent', two_factor_secret: 'JBSWY3DPEHPK3PXPJBSWY3DP' });
    await page.reload();
    const lostRow = page.getByRole('row', { name: new RegExp(lost.email) });
    await lostRow.getByRole('cell', { name: 'On', exact: true }).waitFor();
    await page.getByRole('button', { name: `Reset two-factor: ${lost.name}` }).click();
    await lostRow.getByRole('cell', { name: 'Off', exact: true }).waitFor();
    expect(
      (await stack.api.call('GET', '/admin?r=agents')).body.agents.find((a: { id: string }) => a.id === lost.id),
    ).toMatchObject({ two_factor_enabled: false });

    // Deleting asks first; cancelling keeps her.
    await page.getByRole('button', { name: 'Delete: Ada Lovelace' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Ada Lovelace?' });
    await dialog.getByText('become unassigned').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await storedAgents()).some((a) => a.id === ada.id)).toBe(true);
    await page.getByRole('button', { name: 'Delete: Ada Lovelace' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(async () => (await storedAgents()).some((a) => a.id === ada.id)).toBe(false);
    await expect.poll(() => page.getByRole('row', { name: /ada@shop\.example/ }).count()).toBe(0);

    // The last active admin: with every other admin deactivated, demoting oneself is refused and said why.
    for (const a of await storedAgents())
      if (a.role === 'admin' && a.active && a.id !== admin.id)
        await stack.api.call('POST', '/admin?r=agents', { json: { ...a, active: false } });
    await page.reload();
    await page.getByLabel(`Role of ${admin.name}`).selectOption('agent');
    await page.getByRole('alert').getByText('last active admin').waitFor();
    expect((await storedAgents()).find((a) => a.id === admin.id)!.role).toBe('admin');
    expect(errors).toEqual([]);
    await close();
  });

  test('keys: a key made here works for an API call at once, is never shown again, and stops working when revoked', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/keys');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const me = (key: string) =>
      stack.api.call('GET', '/me', { key }).then((r) => ({ status: r.status, code: r.body?.error?.code }));

    // A secret live key, for a script.
    await page.getByLabel('Kind').selectOption('secret');
    await page.getByLabel('What it is for').fill('ERP sync');
    await page.getByRole('button', { name: 'Make key' }).click();
    const shown = page.locator('.once code');
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(await me(key)).toEqual({ status: 200, code: undefined });
    const row = page.getByRole('row', { name: new RegExp(key.slice(0, 12)) });
    await row.getByText('ERP sync').waitFor();
    expect(await axe(page)).toEqual([]);
    await shots(page, 'keys');
    await page.getByRole('button', { name: 'Done' }).click();
    // Gone for good: not in the page after a reload, nor in the API's read.
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    expect((await stack.api.call('GET', '/admin?r=keys')).text).not.toContain(key);

    // Revoking asks first, says what stops working, and the key is refused from the next request.
    await row.getByRole('button', { name: `Revoke: ${key.slice(0, 12)}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('refused from its next request').waitFor();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    expect(await me(key)).toEqual({ status: 401, code: 'invalid_api_key' });

    // A public key with an origin; its origins changed in place, in force at once.
    await page.getByLabel('Kind').selectOption('public');
    await page.getByLabel('Allowed origins', { exact: true }).fill('https://shop.example');
    await page.getByRole('button', { name: 'Make key' }).click();
    await shown.waitFor();
    const pk = (await shown.textContent())!;
    expect(pk).toMatch(/^pk_live_/);
    const from = (origin: string) => stack.api.call('GET', '/me', { key: pk, headers: { Origin: origin } });
    expect((await from('https://shop.example')).status).toBe(200);
    const box = page.getByLabel(`Allowed origins of ${pk.slice(0, 12)}`);
    await box.fill('https://shop.example\nnot an origin');
    await page.getByRole('button', { name: `Save origins: ${pk.slice(0, 12)}` }).click();
    await expect.poll(() => box.getAttribute('aria-invalid')).toBe('true');
    expect((await box.inputValue()).includes('not an origin')).toBe(true);
    await box.fill('https://new.example');
    await page.getByRole('button', { name: `Save origins: ${pk.slice(0, 12)}` }).click();
    await expect.poll(async () => (await from('https://new.example')).status).toBe(200);
    expect((await from('https://shop.example')).body.error.code).toBe('origin_not_allowed');
    expect(errors).toEqual([]);
    await close();
  });

  test('identity: a generated secret signs like the examples say, the server verifies it, and it is never read back', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/identity');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Verified customers', level: 1 }).waitFor();
    await page.getByText('No secret yet').waitFor();
    for (const name of ['Copy page snippet', 'Copy Node example', 'Copy PHP example', 'Copy Python example'])
      await page.getByRole('button', { name }).waitFor();
    expect(await page.locator('.identity-help').textContent()).toContain("Ticketing('identify'");

    await page.getByRole('button', { name: 'Generate a secret' }).click();
    const secret = await page.getByLabel('Identity secret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    // The try-it signature is the Node example's, run.
    const email = 'ada@example.com';
    const expected = createHmac('sha256', secret).update(email).digest('hex');
    await expect.poll(() => page.getByTestId('signature').textContent()).toBe(expected);
    expect(await axe(page)).toEqual([]);
    await shots(page, 'identity');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    await page.getByText('A secret is set').waitFor();
    expect(await page.getByLabel('Identity secret').inputValue()).toBe('');
    const stored = await stack.api.call('GET', '/admin?r=identity');
    expect(stored.body.identity).toEqual({ secret_set: true, required: false });
    expect((await stack.api.call('GET', '/admin?r=all')).text).not.toContain(secret);

    // The server verifies what the example computes; a forged signature is anonymous.
    const mine = (sig: string) =>
      stack.api.call('GET', '/my-tickets', {
        key: stack.api.keys.pk,
        headers: { 'X-Ticketing-Identity': `${sig}.${encodeURIComponent(email)}` },
      });
    expect((await mine(expected)).status).toBe(200);
    expect((await mine(expected.replace(/^./, (c) => (c === '0' ? '1' : '0')))).body.error.code).toBe(
      'identity_required',
    );

    // Too short a secret is refused at its field; the typed text stays.
    await page.getByLabel('Identity secret').fill('short');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByLabel('Identity secret').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Identity secret').inputValue()).toBe('short');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await page.getByLabel('Only verified customers may use the widget').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=identity')).body.identity).toEqual({
      secret_set: true,
      required: true,
    });
    // Back to off, so that the other tests' widget calls are not refused.
    await stack.api.call('POST', '/admin?r=identity', { json: { required: false } });
    expect(errors).toEqual([]);
    await close();
  });

  test('kb: write a draft with a safe preview, publish it, find it as the widget would, unpublish, delete', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/kb');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Knowledge base', level: 1 }).waitFor();
    const customerFinds = async (q: string) =>
      ((await stack.api.call('GET', `/kb?q=${q}`, { key: stack.api.keys.pk })).body.data as { title: string }[]).map(
        (a) => a.title,
      );

    await page.getByLabel('Title').fill('How do refunds work?');
    await page
      .getByLabel('Text (Markdown)')
      .fill(
        'Open your order and choose **Refund**.\n\n- within 30 days\n\n<img src=x onerror=alert(1)><script>alert(2)</script>',
      );
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.locator('strong', { hasText: 'Refund' }).waitFor();
    await preview.locator('li', { hasText: 'within 30 days' }).waitFor();
    // No HTML: the tags are shown as text, nothing is made of them.
    expect(await preview.locator('img, script').count()).toBe(0);
    expect(await preview.textContent()).toContain('<script>alert(2)</script>');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const stored = async () =>
      (
        (await stack.api.call('GET', '/admin?r=kb')).body.kb as { id: string; title: string; published: boolean }[]
      ).find((a) => a.title === 'How do refunds work?');
    expect(await stored()).toMatchObject({ published: false });
    const nav = page.getByRole('navigation', { name: 'Articles' });
    await nav.getByText('Draft').waitFor();

    // A draft is not found by the widget's search, here nor for a customer.
    await page.getByLabel('Words a customer types').fill('refund');
    await page.getByText('The widget finds nothing for these words.').waitFor();
    expect(await customerFinds('refund')).toEqual([]);

    await nav.getByRole('button', { name: 'Publish: How do refunds work?' }).click();
    await expect.poll(async () => (await stored())?.published).toBe(true);
    // Typo-tolerant, as the widget's search: the hit shows with the matched word marked.
    await page.getByLabel('Words a customer types').fill('refunds');
    const hits = page.getByRole('list', { name: 'What the widget finds' });
    await hits.getByText('How do refunds work?').waitFor();
    expect(await hits.locator('mark').count()).toBeGreaterThan(0);
    expect(await customerFinds('refunds')).toEqual(['How do refunds work?']);
    expect(await axe(page)).toEqual([]);
    await shots(page, 'kb');

    await nav.getByRole('button', { name: 'Unpublish: How do refunds work?' }).click();
    await expect.poll(async () => (await stored())?.published).toBe(false);
    expect(await customerFinds('refunds')).toEqual([]);

    await nav.getByRole('button', { name: 'Delete: How do refunds work?' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(stored).toBeUndefined();
    // The list drops the article once the console has the server's answer (a moment after it is stored).
    await expect.poll(() => nav.getByText('How do refunds work?').count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });
});
