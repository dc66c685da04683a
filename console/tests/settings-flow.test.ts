import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeAgent, openConsole, signIn, startStack, type Stack } from './harness.js';

// axe-core as the demo site's accessibility test uses it (the console has no copy of its own).
const axeSource = (
  createRequire(new URL('../../demo-site/package.json', import.meta.url))('axe-core') as { source: string }
).source;

/** axe-core's violations in the open settings screen, as rule id and where. */
async function axe(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugging protocol: the console's CSP refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown) => Promise<any> } }).axe;
    const result = await axe.run({ include: [['.settings-main']] });
    return (result.violations as { id: string; nodes: { target: unknown[] }[] }[]).flatMap((v) =>
      v.nodes.map((n) => `${v.id} at ${JSON.stringify(n.target)}`),
    );
  });
}

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
    expect(await result.locator('.rule-after').textContent()).toMatch(/Normal.*High/);
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
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  test('SLA targets save with their hours shown, a refused one stays at its field; business hours show "open now?"', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/sla');
    await signIn(page, admin);
    const urgent = page.getByLabel('First response, Urgent (minutes)');
    await urgent.waitFor();
    await page.getByLabel('Set due times on tickets').check();
    await urgent.fill('0');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => urgent.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#sla-first_response_minutes-urgent-err').textContent()).toMatch(/1/);
    expect((await stack.api.call('GET', '/admin?r=sla')).body.sla.enabled).toBe(false);
    await urgent.fill('90');
    expect(await page.locator('#sla-first_response_minutes-urgent-h').textContent()).toBe('= 1.5 h');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const sla = (await stack.api.call('GET', '/admin?r=sla')).body.sla;
    expect(sla).toMatchObject({ enabled: true, first_response_minutes: { urgent: 90 } });

    // Business hours: every day 09:00-17:00 in Tokyo, today and tomorrow (there) holidays: closed now,
    // open the day after tomorrow at 09:00 Tokyo time, which is 00:00 UTC.
    await page.getByRole('tab', { name: 'Business hours' }).click();
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await page.getByRole('button', { name: 'Add hours on Monday' }).click();
    await page.getByRole('button', { name: 'Copy Monday to Tuesday–Friday' }).click();
    await page.getByRole('button', { name: 'Add hours on Saturday' }).click();
    await page.getByRole('button', { name: 'Add hours on Sunday' }).click();
    const tokyoDay = (offset: number) =>
      new Date(Date.now() + offset * 86_400_000).toLocaleDateString('en-CA', { timeZone: 'Asia/Tokyo' });
    for (const [i, offset] of [0, 1].entries()) {
      await page.getByRole('button', { name: 'Add a holiday' }).click();
      await page.getByLabel(`Holiday ${i + 1}`, { exact: true }).fill(tokyoDay(offset));
    }
    const panel = page.locator('.open-now');
    await panel.getByText('With your changes').waitFor();
    const opens = new Date(`${tokyoDay(2)}T00:00:00Z`);
    const weekday = opens.toLocaleDateString('en', { weekday: 'long', timeZone: 'Asia/Tokyo' });
    await expect.poll(() => panel.locator('.open-state').first().textContent()).toContain(`Closed nowOpens ${weekday}`);
    // The same answer as the server's for these hours.
    const draft = {
      timezone: 'Asia/Tokyo',
      days: Object.fromEntries(
        ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '17:00' }]]),
      ),
      holidays: [tokyoDay(0), tokyoDay(1)],
    };
    const server = (await stack.api.call('POST', '/hours/now', { json: { business_hours: draft } })).body;
    expect(server).toMatchObject({ open_now: false, next_open_at: opens.toISOString() });

    // Closing before opening is refused at that time, and "open now?" waits for a fix.
    await page.getByLabel('Monday 1: Closes').fill('08:00');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByLabel('Monday 1: Closes').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#hours-mon-0-err').waitFor();
    await panel.getByText('Fix the hours to see this.').waitFor();
    await page.getByLabel('Monday 1: Closes').fill('17:00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=business_hours')).body.business_hours).toEqual(draft);
    // Saved: one answer, by the saved hours.
    await expect.poll(() => panel.getByText('With your changes').count()).toBe(0);
    expect(await panel.locator('.open-state').textContent()).toContain('Closed now');
    expect(await axe(page)).toEqual([]);
    await page.getByRole('tab', { name: 'SLA' }).click();
    expect(await axe(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  test('escalation, autoreply with its preview, and autoclose save, each refusal shown at its field', async () => {
    const admin = await makeAgent(stack, { role: 'admin', name: 'Lead Lisa' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/automation');
    await signIn(page, admin);
    await page.getByRole('button', { name: 'Add an escalation' }).click();
    const after = page.getByLabel('After (minutes)');
    await after.fill('0');
    await page.getByLabel('Action 1', { exact: true }).selectOption('assign');
    await page.getByLabel('Action 1: value').selectOption({ label: 'Lead Lisa' });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => after.getAttribute('aria-invalid')).toBe('true');
    await page.locator('#esc-0-after-err').waitFor();
    expect((await stack.api.call('GET', '/admin?r=escalation')).body.escalation).toEqual([]);
    await after.fill('30');
    await page.getByText('= 0.5 h').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=escalation')).body.escalation).toEqual([
      {
        id: 'escalation-1',
        after_minutes: 30,
        when: 'no_first_response',
        actions: [{ type: 'assign', value: admin.id }],
      },
    ]);

    // Autoreply: the preview fills in the newest ticket's values; an emptied message is refused there.
    const ticket = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'Grace', email: 'grace@example.com', subject: 'Lost parcel', message: 'Where is it?' },
    });
    await page.getByRole('tab', { name: 'Autoreply' }).click();
    await page.getByLabel('Send an autoreply').check();
    await page.getByLabel('Subject').fill('Got it: {{subject}} ({{ticket_id}})');
    const preview = page.locator('.autoreply-preview');
    await expect
      .poll(() => preview.locator('.mail-subject').textContent())
      .toBe(`[#${ticket.body.number}] Got it: Lost parcel (${ticket.body.id})`);
    await page.getByLabel('Message outside business hours').fill('Hi {{name}}, we are closed.');
    await preview.getByText('Hi Grace, we are closed.').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('');
    // Another tab and back: the draft is kept, and the tab says it is unsaved.
    await page.getByRole('tab', { name: 'Autoclose' }).click();
    await page.getByRole('tab', { name: /Autoreply.*unsaved/ }).click();
    expect(await page.getByLabel('Subject').inputValue()).toBe('Got it: {{subject}} ({{ticket_id}})');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByLabel('Message', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.locator('#autoreply-message-err').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Hi {{name}}, thank you.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=autoreply')).body.autoreply).toEqual({
      enabled: true,
      subject: 'Got it: {{subject}} ({{ticket_id}})',
      message: 'Hi {{name}}, thank you.',
      outside_hours_message: 'Hi {{name}}, we are closed.',
    });

    // Autoclose: more than a year is refused at the field; the summary says what will happen.
    await page.getByRole('tab', { name: 'Autoclose' }).click();
    await page.getByLabel('Close tickets automatically').check();
    const days = page.getByLabel('After (days without a word from the customer)');
    await days.fill('400');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => days.getAttribute('aria-invalid')).toBe('true');
    await page.locator('#autoclose-days-err').waitFor();
    await days.fill('3');
    // Pending (a support reply's default status) and Answered are chosen from the start.
    await expect.poll(() => page.getByLabel('Pending').isChecked()).toBe(true);
    await page
      .getByText('A ticket that is Pending or Answered and has heard nothing from the customer for 3 days is closed.')
      .waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await stack.api.call('GET', '/admin?r=autoclose')).body.autoclose).toEqual({
      enabled: true,
      after_days: 3,
      statuses: ['pending', 'answered'],
    });
    expect(await axe(page)).toEqual([]);
    for (const tab of ['Escalation', 'Autoreply']) {
      await page.getByRole('tab', { name: tab }).click();
      expect(await axe(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
    await close();
  });
});
