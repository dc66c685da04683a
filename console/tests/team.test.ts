import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, startStack, type Stack, type TestAgent } from './harness.js';

// The console of an agent whose role is `agent` (not admin), on a team: issue 30. It used to ask
// /admin for colleagues, macros and tags, get 403 each time and drop them: colleagues showed as
// `agt_…` ids, the assignee select held only "Unassigned" and "Me", macros and tag suggestions were
// gone. Now it reads /v1/team, and the whole walk gets no answer of 400 or more.

/** Where the screenshots of this walk go, to be looked at (not compared). */
const SHOT_DIR = process.env.TEAM_SHOTS ?? '/tmp';

let stack: Stack;
let grace: TestAgent;
let katherine: TestAgent;
let kettle: string;
let parcel: string;
const ok = async (path: string, json: unknown) => {
  const res = await stack.api.call('POST', path, { json });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
};

beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  katherine = await makeAgent(stack, { name: 'Katherine Johnson', role: 'agent' });
  await makeAgent(stack, { name: 'Ada Lovelace', role: 'admin' });
  // A colleague who left: not offered as an assignee, still named where they acted.
  const linus = await makeAgent(stack, { name: 'Linus Left', role: 'agent' });
  await ok('/admin?r=macros', {
    macros: [{ id: 'refund', name: 'Refund sent', message: 'Your refund is on its way.', status: 'pending' }],
  });
  await ok('/admin?r=tags', { tags: [{ name: 'vip', color: '#ff8800' }] });
  kettle = (await createTicket(stack.api, { subject: 'Broken kettle', name: 'Mia Customer' })).id;
  parcel = (await createTicket(stack.api, { subject: 'Where is my parcel', name: 'Noah Customer' })).id;
  await ok('/assign', { ticket_id: parcel, agent_id: katherine.id });
  const old = (await createTicket(stack.api, { subject: 'An old question', name: 'Olga Customer' })).id;
  await ok('/assign', { ticket_id: old, agent_id: linus.id });
  await ok('/admin?r=agents', { id: linus.id, name: linus.name, email: linus.email, active: false });
});
afterAll(() => stack?.close());

const ticket = async (id: string) => (await stack.api.call('GET', `/ticket?id=${id}`)).body;
/** What the page shows as text: no agent id may be among it. */
const shownText = (page: Page) => page.locator('body').innerText();

describe('the console of an agent with role agent', () => {
  it('names colleagues, assigns to one, applies a macro, adds a suggested tag: no answer ≥ 400', async () => {
    const { page, errors, close } = await openConsole(stack);
    // Signed out, the console asks GET /v1/session and is told 401: that is before anyone's role.
    // Everything from the sign-in on is the agent's.
    await page.getByLabel('Email').waitFor();
    const refused: string[] = [];
    const requests: string[] = [];
    page.on('response', (r: Response) => {
      requests.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await signIn(page, grace);

    // The inbox: the colleague's ticket says whose it is, by name.
    const parcelRow = page.locator('li.row', { has: page.getByText('Where is my parcel') });
    await parcelRow.waitFor();
    await expect.poll(() => parcelRow.locator('.assignee').textContent()).toBe('Katherine Johnson');
    await page.getByText('Broken kettle').first().waitFor();
    await page.screenshot({ path: `${SHOT_DIR}/team-agent-inbox.png` });
    expect(await shownText(page)).not.toContain('agt_');

    // The ticket: every active colleague in the assignee select, by name; the one who left is not.
    await page.locator('a.subject', { hasText: 'Broken kettle' }).click();
    await page.waitForURL(`**/console/tickets/${kettle}`);
    await page.getByRole('heading', { name: 'Broken kettle' }).waitFor();
    const assignee = page.locator('.props-bar').getByLabel('Assignee');
    await expect
      .poll(() => assignee.locator('option').allTextContents())
      .toEqual(expect.arrayContaining(['Unassigned', 'Me (Grace Hopper)', 'Katherine Johnson', 'Ada Lovelace']));
    expect(await assignee.locator('option').allTextContents()).not.toContain('Linus Left');
    await assignee.selectOption({ label: 'Katherine Johnson' });
    await expect.poll(async () => (await ticket(kettle)).agent_id).toBe(katherine.id);
    // The activity log names both.
    await page.getByText('Grace Hopper assigned it to Katherine Johnson').first().waitFor();

    // A tag, with the configured ones suggested and coloured.
    expect(
      await page.locator('#tag-names option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)),
    ).toEqual(['vip']);
    await page.locator('#tag-add').fill('vip');
    await page.locator('.tags-edit').getByRole('button', { name: 'Add' }).click();
    await expect.poll(async () => (await ticket(kettle)).tags).toEqual(['vip']);
    const chip = page.locator('.tags-edit .tag', { hasText: 'vip' });
    await chip.waitFor();
    expect(await chip.evaluate((el) => (el as HTMLElement).style.getPropertyValue('--c'))).toBe('#ff8800');

    // A macro: its text goes into the reply, and the reply sets the macro's status.
    await page.locator('#reply-macro').selectOption({ label: 'Refund sent' });
    expect(await page.locator('#reply-text').inputValue()).toContain('Your refund is on its way.');
    await page.getByRole('button', { name: /^Send/ }).click();
    await expect.poll(async () => (await ticket(kettle)).replies.length, { timeout: 20_000 }).toBe(1);
    expect((await ticket(kettle)).replies[0]).toMatchObject({
      message: 'Your refund is on its way.',
      author: grace.name,
    });
    await page.screenshot({ path: `${SHOT_DIR}/team-agent-ticket.png` });
    expect(await shownText(page)).not.toContain('agt_');

    // A ticket of the colleague who left: their name, not their id.
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.locator('a.subject', { hasText: 'An old question' }).click();
    await page.getByRole('heading', { name: 'An old question' }).waitFor();
    await expect
      .poll(() => page.locator('.props-bar').getByLabel('Assignee').locator('option:checked').textContent())
      .toBe('Linus Left');
    expect(await shownText(page)).not.toContain('agt_');

    // Reports and the profile.
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await shownText(page)).not.toContain('agt_');
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    expect(await shownText(page)).not.toContain('agt_');
    // Nothing admin-only on offer: no Settings link to a screen that would be refused.
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);

    // A colleague invited while this console is open, and given a ticket: named as soon as it shows.
    await page.getByRole('link', { name: 'Inbox' }).click();
    const dorothy = await makeAgent(stack, { name: 'Dorothy Vaughan', role: 'agent' });
    await ok('/assign', { ticket_id: parcel, agent_id: dorothy.id });
    await expect.poll(() => parcelRow.locator('.assignee').textContent(), { timeout: 15_000 }).toBe('Dorothy Vaughan');
    expect(await shownText(page)).not.toContain('agt_');

    await page.waitForLoadState('networkidle').catch(() => {});
    expect(requests.some((r) => r.includes('/v1/team'))).toBe(true);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    console.log(`role agent walk: ${requests.length} responses, ${refused.length} with status ≥ 400`);
    await close();
  });
});
