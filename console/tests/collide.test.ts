import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, SHOTS, signIn, startStack, type Stack, type TestAgent } from './harness.js';

// No two answers collide (issue 30), in the console of agents with role `agent`: a reply written while
// a colleague's answer landed is refused, the new message shows above the kept draft, and "Send anyway"
// sends it; "… is viewing" names who has the ticket open; `e` closes with Undo and opens the next ticket.

let stack: Stack;
let grace: TestAgent;
let katherine: TestAgent;

beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  katherine = await makeAgent(stack, { name: 'Katherine Johnson', role: 'agent' });
});
afterAll(() => stack?.close());

const ticket = async (id: string) => (await stack.api.call('GET', `/ticket?id=${id}`)).body;

describe('two agents on one ticket', () => {
  it('refuses a reply written under a colleague’s answer, shows it above the kept draft, and sends anyway', async () => {
    const t = await createTicket(stack.api, { subject: 'Dishwasher leaks', name: 'Mia Customer' });
    const one = await openConsole(stack, `/console/tickets/${t.id}`);
    const two = await openConsole(stack, `/console/tickets/${t.id}`);
    const refused: string[] = [];
    for (const { page } of [one, two])
      page.on('response', (r: Response) => {
        if (r.status() >= 400 && !r.url().endsWith('/v1/session'))
          refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
    await signIn(one.page, grace);
    await signIn(two.page, katherine);
    await one.page.getByRole('heading', { name: 'Dishwasher leaks' }).waitFor();
    await two.page.getByRole('heading', { name: 'Dishwasher leaks' }).waitFor();

    // Each sees the other has the ticket open.
    await one.page.locator('.viewing').getByText('Katherine Johnson is viewing').waitFor({ timeout: 25_000 });
    await two.page.locator('.viewing').getByText('Grace Hopper is viewing').waitFor({ timeout: 25_000 });

    // Grace writes her answer; a colleague's answer lands first.
    await one.page.locator('#reply-text').fill('We will send a new hose.');
    const landed = await stack.api.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'Please send a photo of the leak.', seen_message_id: t.id },
    });
    expect(landed.status).toBe(201);
    await one.page.getByRole('button', { name: /^Send/ }).click();

    // Refused: the new message above the draft, the draft kept, nothing stored twice.
    const banner = one.page.getByRole('alert').filter({ hasText: 'New since you started writing' });
    await banner.waitFor({ timeout: 15_000 });
    await banner.getByText('Please send a photo of the leak.').waitFor();
    expect(await one.page.locator('#reply-text').inputValue()).toBe('We will send a new hose.');
    expect((await ticket(t.id)).replies.map((r: { message: string }) => r.message)).toEqual([
      'Please send a photo of the leak.',
    ]);
    await one.page.screenshot({ path: `${SHOTS}collide-refused.png` });

    // "Send anyway": it goes, after the Undo pause.
    await banner.getByRole('button', { name: 'Send anyway' }).click();
    await expect
      .poll(async () => (await ticket(t.id)).replies.map((r: { message: string }) => r.message), { timeout: 15_000 })
      .toEqual(['Please send a photo of the leak.', 'We will send a new hose.']);
    await expect.poll(() => banner.count()).toBe(0);
    // The 409 is the one answer of 400 or more, and it was expected.
    expect(refused.filter((r) => !r.startsWith('409 POST') || !r.endsWith('/v1/reply'))).toEqual([]);
    expect(refused).toHaveLength(1);
    expect(one.errors).toEqual([]);
    expect(two.errors).toEqual([]);
    await one.close();
    await two.close();
  });
});

describe('the close shortcut e', () => {
  it('closes the ticket, offers Undo in a toast, and opens the next ticket', async () => {
    const first = await createTicket(stack.api, { subject: 'Close me first', name: 'Ola Customer' });
    const second = await createTicket(stack.api, { subject: 'Then me', name: 'Pia Customer' });
    // Newest first in the list: the second ticket is above the first.
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${second.id}?view=open`);
    const refused: string[] = [];
    page.on('response', (r: Response) => {
      if (r.status() >= 400 && !r.url().endsWith('/v1/session')) refused.push(`${r.status()} ${r.url()}`);
    });
    await signIn(page, grace);
    await page.getByRole('heading', { name: 'Then me' }).waitFor();
    await page.locator(`#row-${first.id}`).waitFor();
    // Opening the ticket put the focus on its title: keys are shortcuts there.
    await page.keyboard.press('e');

    const toast = page.getByText('Closed “Then me”.');
    await toast.waitFor();
    await page.getByRole('heading', { name: 'Close me first' }).waitFor();
    expect(page.url()).toContain(`/console/tickets/${first.id}`);
    expect((await ticket(second.id)).status).toBe('closed');
    await page.screenshot({ path: `${SHOTS}collide-closed-undo.png` });

    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await ticket(second.id)).status, { timeout: 5000 }).toBe('open');
    await page.getByText('Reopened.').waitFor();
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});

describe('snooze', () => {
  it('snoozes the open ticket out of Needs reply into Snoozed, and wakes it', async () => {
    const t = await createTicket(stack.api, { subject: 'Waiting for the warehouse', name: 'Uma Customer' });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, grace);
    await page.getByRole('heading', { name: 'Waiting for the warehouse' }).waitFor();
    await page.getByLabel('Snooze').selectOption('snooze_tomorrow');
    await page.locator('.snoozed').getByText('Snoozed until').waitFor();
    const snoozed = await ticket(t.id);
    expect(Date.parse(snoozed.snoozed_until)).toBeGreaterThan(Date.now());
    const needsReply = async () =>
      ((await stack.api.call('GET', '/list?view=needs_reply')).body.data as { id: string }[]).map((r) => r.id);
    expect(await needsReply()).not.toContain(t.id);
    await page.getByRole('link', { name: /^Snoozed/ }).click();
    await page.locator(`#row-${t.id}`).click();
    await page.getByRole('button', { name: 'Wake now' }).click();
    await expect.poll(async () => (await ticket(t.id)).snoozed_until).toBeUndefined();
    expect(await needsReply()).toContain(t.id);
    expect(errors).toEqual([]);
    await close();
  });
});
