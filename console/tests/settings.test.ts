import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { axeFindings, makeAgent, openConsole, signIn, SHOTS, startStack, type Stack } from './harness.js';

// The settings area's frame: admins reach every section from the header, agents never see it, and a
// save that the server refuses shows its message beside the field without losing the edit.
describe('settings', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  test('an admin opens Settings from the header and moves between sections', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, admin);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/settings$/);
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await expect.poll(() => nav.getByRole('link').count()).toBeGreaterThan(10);
    await nav.getByRole('link', { name: 'Statuses and tags' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/settings\/statuses$/);
    expect(await nav.getByRole('link', { name: 'Statuses and tags' }).getAttribute('aria-current')).toBe('page');
    // Deep links work after a reload, and an unknown section says so.
    await page.goto(`${stack.api.url}/console/settings/nope`);
    await page.getByText('There is no such settings page.').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  test('a form saves through /admin, survives a reload, and a refused value is shown at its field', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/form');
    await signIn(page, admin);
    const box = page.getByLabel('Require a category');
    await box.waitFor();
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const stored = await stack.api.call('GET', '/admin?r=form');
    expect(stored.body.form.require_category).toBe(true);
    await page.reload();
    await page.getByLabel('Require a category').waitFor();
    expect(await page.getByLabel('Require a category').isChecked()).toBe(true);

    // Too long for the server (2000 characters at most): its message sits under the field, focus
    // moves there, and the text typed is still in the box.
    const notice = page.getByLabel('Privacy notice');
    await notice.fill('x'.repeat(2001));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => notice.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#form-privacy-err').textContent()).toMatch(/2000/);
    expect((await notice.inputValue()).length).toBe(2001);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('form-privacy');
    expect((await stack.api.call('GET', '/admin?r=form')).body.form.privacy_notice).toBeNull();
    expect(errors).toEqual([]);
    await close();
  });

  test('every settings screen passes axe, light and dark, wide and on a phone', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    for (const width of [1280, 390]) {
      const { page, errors, close } = await openConsole(stack, '/console/settings', width);
      await signIn(page, admin);
      const nav = page.getByRole('navigation', { name: 'Settings sections' });
      await nav.getByRole('link').first().waitFor();
      const hrefs = await nav.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      expect(hrefs.length).toBeGreaterThan(10);
      for (const href of hrefs) {
        await nav.locator(`a[href="${href}"]`).click();
        await page.locator('#main h1').first().waitFor();
        await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
        const name = href.split('/').pop()!;
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          expect(await axeFindings(page), `axe on settings/${name} ${width}px ${scheme}`).toEqual([]);
          if (width === 1280 || scheme === 'light')
            await page.screenshot({ path: `${SHOTS}settings-${name}-${width}-${scheme}.png`, fullPage: true });
        }
        await page.emulateMedia({ colorScheme: 'light' });
      }
      expect(errors).toEqual([]);
      await close();
    }
  });

  test('an agent with role agent sees no Settings link and cannot open it', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByRole('link', { name: 'Inbox' }).waitFor();
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    await page.goto(`${stack.api.url}/console/settings/design`);
    await page.getByText('Only an admin can change settings.').waitFor();
    // The server agrees: the admin API refuses the agent's session.
    const status = await page.evaluate(async () => (await fetch('/v1/admin?r=design')).status);
    expect(status).toBe(403);
    expect(errors).toEqual([]);
    await close();
  });
});
