import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  await createTicket(stack.api, { subject: 'Already here', name: 'First Customer' });
});
afterAll(() => stack?.close());

/** The count a view's link in the side bar shows. */
const viewCount = (page: import('playwright-core').Page, name: string) =>
  page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link', { name: new RegExp(`^${name}`) })
    .locator('.count')
    .textContent();

describe('the console live against the real server', () => {
  it('shows a new ticket in the open inbox, a customer reply in the open thread, and new counts, without a reload', async () => {
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText('Already here').first().waitFor();
    expect(await viewCount(page, 'All')).toBe('1');

    const t = await createTicket(stack.api, {
      subject: 'Arrived while watching',
      name: 'Live Customer',
      email: 'live@example.com',
    });
    await page.getByText('Arrived while watching').first().waitFor({ timeout: 2000 });
    await expect.poll(() => viewCount(page, 'All'), { timeout: 2000 }).toBe('2');
    await expect.poll(() => viewCount(page, 'Needs reply'), { timeout: 2000 }).toBe('2');
    await page.screenshot({ path: `${SHOTS}live-inbox.png` });

    await page.getByText('Arrived while watching').first().click();
    await page.waitForURL(`**/console/tickets/${t.id}`);
    await page.getByRole('heading', { name: 'Arrived while watching' }).waitFor();
    const res = await stack.api.call('POST', '/reply', {
      key: stack.api.keys.pk,
      json: { ticket_id: t.id, email: 'live@example.com', message: 'Any news about my parcel?' },
    });
    expect(res.status).toBe(201);
    await page.locator('.thread').getByText('Any news about my parcel?').waitFor({ timeout: 2000 });
    await page.screenshot({ path: `${SHOTS}live-thread.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it('sets an internal note apart in the thread, and the customer never sees it', async () => {
    const t = await createTicket(stack.api, { subject: 'Note me', name: 'Noted Customer', email: 'noted@example.com' });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'Note me' }).waitFor();
    await page.getByRole('radio', { name: 'Internal note' }).check();
    await page.locator('#reply-text').fill('Refund approved by finance, do not tell yet.');
    await page.getByRole('button', { name: 'Add note', exact: true }).click();
    const note = page.locator('.thread .msg-note');
    await note.getByText('Refund approved by finance, do not tell yet.').waitFor({ timeout: 15_000 });
    expect(await note.locator('.kind').textContent()).toBe('Internal note');
    // Set apart: not drawn as a support reply.
    expect(await page.locator('.thread .msg-support').count()).toBe(0);
    await note.screenshot({ path: `${SHOTS}live-note.png` });

    const staff = await stack.api.call('GET', `/ticket?id=${t.id}`);
    expect(staff.body.replies.map((r: { internal?: boolean; message: string }) => [r.internal, r.message])).toEqual([
      [true, 'Refund approved by finance, do not tell yet.'],
    ]);
    const customer = await stack.api.call('GET', `/ticket?id=${t.id}&email=noted%40example.com`, {
      key: stack.api.keys.pk,
    });
    expect(customer.status).toBe(200);
    expect(customer.body.replies).toEqual([]);
    expect(customer.text).not.toContain('Refund approved');
    expect(errors).toEqual([]);
    await close();
  });

  it('lists a new customer ticket under Needs reply, drops it once the agent replied, takes it back when the customer answers, and counts it under Mine once assigned', async () => {
    const t = await createTicket(stack.api, {
      subject: 'Waiting for us',
      name: 'Patient Customer',
      email: 'patient@example.com',
    });
    const { page, errors, close } = await openConsole(stack, '/console/?view=needs_reply');
    await signIn(page, agent);
    const list = page.getByRole('list', { name: 'Tickets' });
    await list.getByText('Waiting for us').waitFor();
    const before = Number(await viewCount(page, 'Needs reply'));
    expect(await list.locator('.row').count()).toBe(before);

    await list.getByText('Waiting for us').click();
    await page.getByRole('heading', { name: 'Waiting for us' }).waitFor();
    await page.locator('#reply-text').fill('We are on it.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await list.getByText('Waiting for us').waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => viewCount(page, 'Needs reply')).toBe(String(before - 1));
    expect(await list.locator('.row').count()).toBe(before - 1);
    const needs = await stack.api.call('GET', '/list?view=needs_reply');
    expect(needs.body.data.map((r: { id: string }) => r.id)).not.toContain(t.id);
    await page.screenshot({ path: `${SHOTS}live-needs-reply.png` });

    // The customer answers: the ticket waits for us again, back in the view without a reload.
    const again = await stack.api.call('POST', '/reply', {
      key: stack.api.keys.pk,
      json: { ticket_id: t.id, email: 'patient@example.com', message: 'Thanks, and when?' },
    });
    expect(again.status).toBe(201);
    await list.getByText('Waiting for us').waitFor({ timeout: 2000 });
    await expect.poll(() => viewCount(page, 'Needs reply'), { timeout: 2000 }).toBe(String(before));

    // Taken by the agent: Mine counts it, Unassigned no longer does.
    const unassigned = Number(await viewCount(page, 'Unassigned'));
    expect(await viewCount(page, 'Mine')).toBe('0');
    await page.locator('.props-bar').getByLabel('Assignee').selectOption(agent.id);
    await expect.poll(() => viewCount(page, 'Mine'), { timeout: 2000 }).toBe('1');
    expect(await viewCount(page, 'Unassigned')).toBe(String(unassigned - 1));
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Mine/ }).click();
    await expect.poll(() => list.locator('.row').count()).toBe(1);
    expect(await list.locator('.row').textContent()).toContain('Waiting for us');
    expect(errors).toEqual([]);
    await close();
  });

  it('sets the status of two selected tickets at once, and Undo puts the old statuses back', async () => {
    const a = await createTicket(stack.api, { subject: 'Bulk one', email: 'bulk1@example.com' });
    const b = await createTicket(stack.api, { subject: 'Bulk two', email: 'bulk2@example.com' });
    const c = await createTicket(stack.api, { subject: 'Bulk untouched', email: 'bulk3@example.com' });
    const status = async (id: string) => (await stack.api.call('GET', `/ticket?id=${id}`)).body.status;
    const { page, errors, close } = await openConsole(stack, '/console/?view=all');
    await signIn(page, agent);
    await page.getByText('Bulk untouched').first().waitFor();
    await page.getByLabel('Select Bulk one').check();
    await page.getByLabel('Select Bulk two').check();
    const bar = page.getByRole('group', { name: 'Change the selected tickets' });
    await bar.getByLabel('Set status…').selectOption('pending');
    await page.getByText('2 tickets changed.').waitFor();
    expect([await status(a.id), await status(b.id), await status(c.id)]).toEqual(['pending', 'pending', 'open']);
    // The list shows the new status without a reload.
    const row = (subject: string) => page.locator('.row', { hasText: subject });
    await expect.poll(() => row('Bulk one').getByText('Pending').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}live-bulk.png` });

    await page.getByRole('button', { name: 'Undo' }).click();
    // One bulk call puts both back, ticket by ticket: wait for the whole answer.
    await expect
      .poll(async () => [await status(a.id), await status(b.id), await status(c.id)])
      .toEqual(['open', 'open', 'open']);
    await expect.poll(() => row('Bulk two').getByText('Pending').count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it("merges one of a customer's tickets into another", async () => {
    const into = await createTicket(stack.api, {
      subject: 'First of two',
      message: 'The lid is cracked.',
      email: 'twice@example.com',
    });
    const from = await createTicket(stack.api, {
      subject: 'Second of two',
      message: 'Also the handle.',
      email: 'twice@example.com',
    });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${from.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'Second of two' }).waitFor();
    await page.getByRole('button', { name: 'Merge into another ticket' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge this ticket' });
    await dialog.getByLabel('Merge into').selectOption(into.id);
    await dialog.getByRole('button', { name: 'Merge into another ticket' }).click();
    await page.waitForURL(`**/console/tickets/${into.id}`);
    await page.getByRole('heading', { name: 'First of two' }).waitFor();
    await page.locator('.thread').getByText('Also the handle.').waitFor();
    // The receiving thread tells where the moved message came from.
    await page.locator('.thread .activity').getByText(`${agent.name} merged ${from.id} into this ticket`).waitFor();
    await page.screenshot({ path: `${SHOTS}live-merged.png` });
    const merged = (await stack.api.call('GET', `/ticket?id=${from.id}`)).body;
    expect(merged.merged_into).toBe(into.id);
    expect(merged.status).toBe('closed');
    const kept = (await stack.api.call('GET', `/ticket?id=${into.id}`)).body;
    expect(kept.replies.map((r: { message: string; from_customer: boolean }) => [r.from_customer, r.message])).toEqual([
      [true, 'Also the handle.'],
    ]);
    expect(errors).toEqual([]);
    await close();
  });

  it("tells in the thread what happened: a tag, a customer's close request accepted, a merge", async () => {
    const email = 'history@example.com';
    const into = await createTicket(stack.api, { subject: 'Kept history', email });
    const t = await createTicket(stack.api, { subject: 'With history', email });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'With history' }).waitFor();
    const lines = page.locator('.thread .activity span');
    await page.getByLabel('Add a tag').fill('vip');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => lines.allTextContents()).toEqual([`${agent.name} added the tag vip`]);

    const asked = await stack.api.call('POST', '/close-request', {
      key: stack.api.keys.pk,
      json: { ticket_id: t.id, email },
    });
    expect(asked.status).toBe(200);
    await expect.poll(() => lines.count(), { timeout: 2000 }).toBe(2);
    const answered = await stack.api.call('POST', '/close-resolve', { json: { ticket_id: t.id, accept: true } });
    expect(answered.status).toBe(200);
    await expect.poll(() => lines.count(), { timeout: 2000 }).toBe(4);
    const text = await lines.allTextContents();
    expect(text[1]).toMatch(/ asked to close the ticket$/);
    expect(text.slice(2).some((l) => / accepted the close request$/.test(l))).toBe(true);
    expect(text.slice(2).some((l) => / changed the status from Open to Closed$/.test(l))).toBe(true);
    expect(text.join('\n')).not.toMatch(/: (tags|close_request)$/m);

    // Closed tickets can still be merged (the customer wrote twice).
    const merged = await stack.api.call('POST', '/merge', { json: { ticket_id: t.id, into_id: into.id } });
    expect(merged.status).toBe(200);
    await expect.poll(() => lines.last().textContent(), { timeout: 2000 }).toMatch(` merged it into ${into.id}`);
    await page.locator('.thread').screenshot({ path: `${SHOTS}live-activity.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it("shows a colleague typing on the same ticket, and the colleague's note live", async () => {
    const colleague = await makeAgent(stack, { role: 'agent' });
    const t = await createTicket(stack.api, { subject: 'Two agents', email: 'two@example.com' });
    const one = await openConsole(stack, `/console/tickets/${t.id}`);
    const two = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(one.page, agent);
    await signIn(two.page, colleague);
    await one.page.getByRole('heading', { name: 'Two agents' }).waitFor();
    await two.page.getByRole('heading', { name: 'Two agents' }).waitFor();
    // Typing is not replayed: the first agent's stream must be open (the dot in the header) before.
    await one.page.getByTitle('Live updates on').waitFor();
    expect(await one.page.locator('.typing').count()).toBe(0);
    await two.page.locator('#reply-text').pressSequentially('Let me');
    await one.page.locator('.typing').getByText(colleague.name).waitFor({ timeout: 2000 });
    await one.page.screenshot({ path: `${SHOTS}live-typing.png` });
    expect(await two.page.locator('.typing').count()).toBe(0);

    await two.page.getByRole('radio', { name: 'Internal note' }).check();
    await two.page.locator('#reply-text').fill('Let me check the warehouse.');
    await two.page.getByRole('button', { name: 'Add note', exact: true }).click();
    // Sent after the Undo pause; then it reaches the first agent over the stream.
    await expect
      .poll(async () => (await stack.api.call('GET', `/ticket?id=${t.id}`)).body.replies.length, { timeout: 15_000 })
      .toBe(1);
    await one.page.locator('.thread .msg-note').getByText('Let me check the warehouse.').waitFor({ timeout: 2000 });
    // The note is from the colleague: the typing line is gone.
    expect(await one.page.locator('.typing').count()).toBe(0);
    expect(one.errors).toEqual([]);
    expect(two.errors).toEqual([]);
    await one.close();
    await two.close();
  });

  it('marks a ticket as spam and blocks the sender, from the ticket pane', async () => {
    const t = await createTicket(stack.api, { subject: 'Cheap watches', email: 'spammer@spam.example' });
    const { page, errors, close } = await openConsole(stack, `/console/tickets/${t.id}`);
    await signIn(page, agent);
    await page.getByRole('heading', { name: 'Cheap watches' }).waitFor();
    await page.getByRole('button', { name: 'Mark as spam' }).click();
    const dialog = page.getByRole('dialog', { name: 'Mark as spam' });
    await dialog.getByLabel('Also block spammer@spam.example').check();
    await dialog.getByRole('button', { name: 'Mark as spam' }).click();
    await page.getByText('Marked as spam.').waitFor();
    const stored = (await stack.api.call('GET', `/ticket?id=${t.id}`)).body;
    expect(stored).toMatchObject({ status: 'closed', tags: ['spam'] });
    const lines = page.locator('.thread .activity span');
    await expect
      .poll(() => lines.allTextContents())
      .toEqual([`${agent.name} changed the status from Open to Closed`, `${agent.name} added the tag spam`]);
    await expect.poll(() => page.locator('.props-bar').getByLabel('Status').inputValue()).toBe('closed');
    const again = await stack.api.call('POST', '/create', {
      key: stack.api.keys.pk,
      json: { name: 'Spammer', email: 'spammer@spam.example', subject: 'Again', message: 'Buy now' },
    });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('blocked');
    await page.screenshot({ path: `${SHOTS}live-spam.png` });
    // Found alone by a search of all tickets: counted in the singular.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All/ }).click();
    await page.locator('#inbox-search').fill('Cheap watches');
    await expect.poll(() => page.locator('.inbox .total').textContent()).toBe('1 ticket');
    expect(errors).toEqual([]);
    await close();
  });
});
