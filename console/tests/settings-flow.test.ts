import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeAgent, openConsole, signIn, startStack, SHOTS, type Stack } from './harness.js';

// The workflow settings: the rules builder with its test against a ticket, SLA and business hours with
// "open now?", escalation, autoreply and autoclose. Each is saved through /admin and checked there.
describe('settings: rules, SLA and hours, automation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  test('an admin builds a rule, tests it on a ticket without changing it, and a new ticket gets its effect', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const created = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'Ada', email: 'ada@vip.example', subject: 'Broken teapot', message: 'It leaks.' },
    });
    expect(created.status).toBe(201);
    const ticketId = created.body.id as string;
    const before = (await stack.api.call('GET', `/ticket?id=${ticketId}`)).body;

    const { page, errors, close } = await openConsole(stack, '/console/settings/rules');
    await signIn(page, admin);
    await page.getByRole('button', { name: 'Add a rule' }).click();
    // Saved without a name: the server's message sits under the rule's name, focus goes there.
    await page.getByRole('button', { name: 'Save' }).click();
    const name = page.getByLabel('Name', { exact: true });
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#rule-0-name-err').textContent()).toBeTruthy();
    expect((await stack.api.call('GET', '/admin?r=rules')).body.rules).toEqual([]);

    await name.fill('VIP customers');
    await page.getByRole('button', { name: 'Add a condition' }).click();
    await page.getByLabel('Condition 1: field').selectOption('email');
    await page.getByLabel('Condition 1: comparison').selectOption('ends_with');
    await page.getByLabel('Condition 1: value').fill('@vip.example');
    // The first action (set priority high) is there; a second adds a tag by text.
    await page.getByRole('button', { name: 'Add an action' }).click();
    await page.getByLabel('Action 2', { exact: true }).selectOption('add_tag');
    await page.getByLabel('Action 2: value').fill('vip');

    // Tested before saving: the unsaved rule would act, and the ticket stays as it was.
    await page.getByLabel('Recent tickets').selectOption(ticketId);
    expect(await page.getByLabel('Ticket id').inputValue()).toBe(ticketId);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.locator('.rule-result');
    await result.getByText('would act').waitFor();
    expect(await result.locator('.rule-after').textContent()).toMatch(/normal.*high/);
    expect(await result.locator('.rule-after').textContent()).toMatch(/vip/);
    expect((await stack.api.call('GET', `/ticket?id=${ticketId}`)).body).toEqual(before);
    // A ticket that is not there is said so at the id.
    await page.getByLabel('Ticket id').fill('tkt_nothing');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText('There is no ticket with this id.').waitFor();

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const rules = (await stack.api.call('GET', '/admin?r=rules')).body.rules;
    expect(rules).toEqual([
      {
        id: 'rule-1',
        name: 'VIP customers',
        enabled: true,
        event: 'ticket.created',
        conditions: [{ field: 'email', op: 'ends_with', value: '@vip.example' }],
        actions: [
          { type: 'set_priority', value: 'high' },
          { type: 'add_tag', value: 'vip' },
        ],
      },
    ]);
    const next = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'Bo', email: 'bo@VIP.example', subject: 'Hello', message: 'Hi' },
    });
    expect((await stack.api.call('GET', `/ticket?id=${next.body.id}`)).body).toMatchObject({
      priority: 'high',
      tags: ['vip'],
    });
    await page.screenshot({ path: `${SHOTS}settings-rules.png`, fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});
