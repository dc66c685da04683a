import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeAgent, openConsole, signIn, startStack, type Stack } from './harness.js';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * axe-core on the settings screen (evaluated by the browser's debugging protocol, which the page's
 * CSP does not govern): the violations as rule id and where. The framed widget has its own axe run in
 * demo-site's tests.
 */
async function axe(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<any> } }).axe;
    const result = await axe.run({ include: [['.settings-main']] }, { iframes: false });
    return (result.violations as { id: string; nodes: { target: unknown[] }[] }[]).flatMap((v) =>
      v.nodes.map((n) => `${v.id} at ${JSON.stringify(n.target)}`),
    );
  });
}

// The settings screens of how the portal looks and speaks: the widget's design (with the real widget
// previewing the unsaved draft), the form's categories, statuses and tags, macros. Each saves through
// /admin, shows a refusal at its field, and shows the effect of an unsaved change.
describe('settings: design, form, statuses, macros', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  test('design: the real widget previews the unsaved design; saving changes /widget-config; a bad colour is refused at its field', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/design');
    await signIn(page, admin);
    const titleBox = page.getByLabel('Title', { exact: true });
    await titleBox.waitFor();

    // The preview frame runs widget.js from this server: its launcher and open panel are in the frame.
    const frame = page.frameLocator('iframe[title="Preview of the widget with the unsaved design"]');
    await frame.locator('#tk-title').waitFor();
    expect(await frame.locator('#tk-title').textContent()).toBe('Support');

    // Typing changes the preview before anything is saved, and focus stays in the form.
    await titleBox.fill('Help desk of Ada’s shop');
    await page.getByLabel('Launcher label').fill('Ask Ada');
    await expect.poll(() => frame.locator('#tk-title').textContent()).toBe('Help desk of Ada’s shop');
    await expect.poll(() => frame.locator('button.launcher').getAttribute('aria-label')).toBe('Ask Ada');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('design-launcher-label');
    await page.getByLabel('Position').selectOption('bottom-left');
    await expect.poll(() => frame.locator('[data-ticketing]').getAttribute('data-position')).toBe('bottom-left');
    // The language and the logo reach the real widget too: German strings, the logo beside the title.
    await page.getByLabel('Widget language').selectOption('de');
    // (A loopback address: the test sends nothing off this machine.)
    const logo = `${stack.api.url}/logo.png`;
    await page.getByLabel('Logo address').fill(logo);
    await expect.poll(() => frame.locator('button.launcher').getAttribute('aria-label')).toBe('Ask Ada');
    await expect.poll(() => frame.locator('.tk img').getAttribute('src')).toBe(logo);
    await expect.poll(() => frame.locator('.tk').getAttribute('lang')).toBe('de');
    const pk = (await stack.api.call('GET', '/widget-config')).body.public_key as string;
    expect((await stack.api.call('GET', '/widget-config', { key: pk })).body.design.title).toBe('Support');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const config = (await stack.api.call('GET', '/widget-config', { key: pk })).body.design;
    expect(config).toMatchObject({
      title: 'Help desk of Ada’s shop',
      launcher_label: 'Ask Ada',
      position: 'bottom-left',
    });

    // A colour the server refuses: its message under the field, the typed value kept, nothing stored.
    const color = page.locator('#design-color');
    await color.fill('blue');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => color.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#design-color-err').textContent()).not.toBe('');
    expect(await color.inputValue()).toBe('blue');
    expect((await stack.api.call('GET', '/admin?r=design')).body.design.primary_color).toBe('#2563eb');

    // The snippet names this server's widget.js and the live public key, and copies.
    const snippet = await page.locator('.snippet code').textContent();
    expect(snippet).toBe(`<script src="${stack.api.url}/widget.js" data-key="${pk}" async></script>`);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
  test('form: categories with fields are added, typed, reordered and saved apart from the switches; a select without choices is refused at its field', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/form');
    await signIn(page, admin);
    const region = page.getByRole('region', { name: 'Categories' });
    await region.getByRole('button', { name: 'Add a category' }).click();
    await page.locator('#cat-0-name').fill('Billing');
    // The id follows the name of a new row.
    expect(await page.locator('#cat-0-id').inputValue()).toBe('billing');
    await region.getByRole('button', { name: 'Add a field' }).click();
    await page.locator('#cat-0-f-0-label').fill('Order number');
    await page.locator('#cat-0-f-0-type').selectOption('select');
    await page.locator('#cat-0-f-0-required').check();
    // The switches above are a resource of their own: their Save stays off, the categories' is on.
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await region.getByRole('button', { name: 'Save categories' }).click();
    const options = page.locator('#cat-0-f-0-options');
    await expect.poll(() => options.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#cat-0-f-0-options-err').textContent()).toMatch(/needs options/);
    expect(await page.locator('#cat-0-f-0-label').inputValue()).toBe('Order number');
    expect((await stack.api.call('GET', '/admin?r=categories')).body.categories).toEqual([]);

    await options.fill('Web shop\n\nPhone\n');
    await region.getByRole('button', { name: 'Add a category' }).click();
    await page.locator('#cat-1-name').fill('Returns');
    await region.getByRole('button', { name: 'Move up: Returns' }).click();
    await region.getByRole('button', { name: 'Save categories' }).click();
    await region.getByRole('status').getByText('Saved').waitFor();
    const stored = (await stack.api.call('GET', '/admin?r=categories')).body.categories;
    expect(stored).toEqual([
      { id: 'returns', name: 'Returns', fields: [] },
      {
        id: 'billing',
        name: 'Billing',
        fields: [
          { id: 'order-number', label: 'Order number', type: 'select', required: true, options: ['Web shop', 'Phone'] },
        ],
      },
    ]);
    // What the widget is told matches.
    expect((await stack.api.call('GET', '/meta')).body.categories.map((c: { id: string }) => c.id)).toEqual([
      'returns',
      'billing',
    ]);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
  test('statuses: colours and closed are saved; a status in use comes back with the reason at its row; tags get colours; priorities are shown', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    // A ticket in "answered": that status cannot be removed while it has it.
    const ticket = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'Ada', email: 'ada@shop.example', subject: 'Where is my parcel?', message: 'Order 42' },
    });
    await stack.api.call('POST', '/status', { json: { ticket_id: ticket.body.id, status: 'answered' } });
    const { page, errors, close } = await openConsole(stack, '/console/settings/statuses');
    await signIn(page, admin);
    await page.locator('#status-0-name').waitFor();
    expect(await page.locator('.priority-list li').allTextContents()).toEqual(['Low', 'Normal', 'High', 'Urgent']);

    // A new status: id from the name, a colour, counted as closed; its badge shows the unsaved colour.
    const region = page.getByRole('region', { name: 'Statuses' });
    await region.getByRole('button', { name: 'Add a status' }).click();
    await page.locator('#status-4-name').fill('Solved elsewhere');
    expect(await page.locator('#status-4-id').inputValue()).toBe('solved-elsewhere');
    await page.locator('#status-4-color').fill('#7c3aed');
    await page.locator('#status-4-closed').check();
    const badge = page.locator('.status-row').nth(4).locator('.badge');
    await expect
      .poll(() => badge.evaluate((el) => getComputedStyle(el).getPropertyValue('--c').trim()))
      .toBe('#7c3aed');
    // Removing "answered", which a ticket has: the server refuses (409), the row comes back with why.
    await region.getByRole('button', { name: 'Remove: Answered' }).click();
    expect(await page.locator('#status-2-name').inputValue()).toBe('Closed');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const why = page.locator('.status-row.kept [role="alert"]');
    await why.waitFor();
    expect(await why.textContent()).toMatch(
      /cannot be removed while it is in use.*1 ticket\(s\) still have this status/,
    );
    expect(await page.locator('.status-row.kept input[id$="-name"]').inputValue()).toBe('Answered');
    expect((await stack.api.call('GET', '/admin?r=statuses')).body.statuses).toHaveLength(4);
    // Saving again, with the status kept, stores the new one; the typed row was not lost.
    expect(await page.locator('#status-4-name').inputValue()).toBe('Solved elsewhere');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await region.getByRole('status').getByText('Saved').waitFor();
    const stored = (await stack.api.call('GET', '/admin?r=statuses')).body.statuses;
    expect(stored.map((x: { id: string }) => x.id)).toEqual([
      'open',
      'pending',
      'answered',
      'closed',
      'solved-elsewhere',
    ]);
    expect(stored[4]).toEqual({ id: 'solved-elsewhere', name: 'Solved elsewhere', closed: true, color: '#7c3aed' });

    // Tags: a bad colour is refused at its field, a good one saved.
    const tags = page.getByRole('region', { name: 'Tags' });
    await tags.getByRole('button', { name: 'Add a tag' }).click();
    await page.locator('#tag-0-name').fill('vip');
    await page.locator('#tag-0-color').fill('gold');
    await tags.getByRole('button', { name: 'Save tags' }).click();
    await expect.poll(() => page.locator('#tag-0-color').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#tag-0-color-err').textContent()).not.toBe('');
    await page.locator('#tag-0-color').fill('#ca8a04');
    await tags.getByRole('button', { name: 'Save tags' }).click();
    await tags.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=tags')).body.tags).toEqual([{ name: 'vip', color: '#ca8a04' }]);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
  test('macros: the preview fills the placeholders of the unsaved message; a macro is saved with a status; a missing message is refused at its field', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/macros');
    await signIn(page, admin);
    await page.getByRole('button', { name: 'Add a macro' }).click();
    await page.locator('#macro-0-name').fill('Shipped');
    expect(await page.locator('#macro-0-id').inputValue()).toBe('shipped');
    const preview = page.locator('#macro-0-preview .filled');
    await page.locator('#macro-0-message').fill('Hi {{name}}, "{{ subject }}" ({{ticket_id}}) has shipped. {{order}}');
    await expect
      .poll(() => preview.textContent())
      .toBe('Hi Ada Lovelace, "Where is my order?" (tkt_7Hq2Lm9XwP4sK8dA) has shipped. {{order}}');
    expect(await page.locator('#macro-0-preview .warn').textContent()).toContain('{{order}}');
    await page.locator('#macro-0-status').selectOption('answered');
    await page.locator('#macro-0-priority').selectOption('low');

    // A second macro without a message: refused at that field, both rows kept as typed.
    await page.getByRole('button', { name: 'Add a macro' }).click();
    await page.locator('#macro-1-name').fill('Empty');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('#macro-1-message').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#macro-1-message-err').textContent()).not.toBe('');
    expect(await page.locator('#macro-0-name').inputValue()).toBe('Shipped');
    expect((await stack.api.call('GET', '/admin?r=macros')).body.macros).toEqual([]);

    await page.getByRole('button', { name: 'Remove: Empty' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=macros')).body.macros).toEqual([
      {
        id: 'shipped',
        name: 'Shipped',
        message: 'Hi {{name}}, "{{ subject }}" ({{ticket_id}}) has shipped. {{order}}',
        status: 'answered',
        priority: 'low',
      },
    ]);
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
