import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, openConsole, signIn, startStack, type Stack, type TestAgent } from './harness.js';

// Mentions (issue 30): `@` in the note box offers the team from /v1/team, completed by keyboard; the
// note keeps the colleague by id; the colleague's console shows a toast and counts the mentions view.
// Both sides sign in with role `agent`, and no request of theirs is answered 4xx.

const SHOT_DIR = process.env.TEAM_SHOTS ?? '/tmp';

let stack: Stack;
let grace: TestAgent;
let katherine: TestAgent;
let kettle: { id: string; number: number };
beforeAll(async () => {
  stack = await startStack();
  grace = await makeAgent(stack, { name: 'Grace Hopper', role: 'agent' });
  katherine = await makeAgent(stack, { name: 'Katherine Johnson', role: 'agent' });
  await makeAgent(stack, { name: 'Kathleen Booth', role: 'agent' });
  kettle = (await createTicket(stack.api, { subject: 'Broken kettle', name: 'Mia Customer' })) as never;
});
afterAll(() => stack?.close());

describe('mentions in the console', () => {
  it('complete @ from the team by keyboard, and tell the colleague with a toast and the mentions view', async () => {
    const kat = await openConsole(stack);
    const writer = await openConsole(stack, `/console/tickets/${kettle.id}`);
    const refused: string[] = [];
    for (const { page } of [kat, writer]) {
      await page.getByLabel('Email').waitFor();
      page.on('response', (r: Response) => {
        if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
    }
    await signIn(kat.page, katherine);
    const mentionsView = kat.page.locator('nav.views a', { hasText: 'Mentions' });
    await expect.poll(() => mentionsView.locator('.count').textContent()).toBe('0');

    const page = writer.page;
    await signIn(page, grace);
    await page.getByRole('heading', { name: 'Broken kettle' }).waitFor();
    await page.getByLabel('Internal note').check();
    const box = page.locator('#reply-text');
    await box.click();
    await box.pressSequentially('Can you call her, @Kat');
    const list = page.getByRole('listbox', { name: 'Colleagues to mention' });
    await list.waitFor();
    expect(await list.getByRole('option').allTextContents()).toEqual(['Katherine Johnson', 'Kathleen Booth']);
    expect(await box.getAttribute('aria-activedescendant')).toBe('mention-list-0');
    await box.press('ArrowDown');
    expect(await list.getByRole('option', { selected: true }).textContent()).toBe('Kathleen Booth');
    await box.press('ArrowUp');
    expect(await list.getByRole('option', { selected: true }).textContent()).toBe('Katherine Johnson');
    // Escape closes the suggestions and leaves the text and the focus where they were.
    await box.press('Escape');
    await list.waitFor({ state: 'detached' });
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await box.inputValue()).toBe('Can you call her, @Kat');
    await box.pressSequentially('h');
    await list.waitFor();
    await page.screenshot({ path: `${SHOT_DIR}/mentions-complete.png` });
    await box.press('Enter'); // takes the highlighted one, sends nothing
    await list.waitFor({ state: 'detached' });
    await box.pressSequentially('today?');
    expect(await box.inputValue()).toBe('Can you call her, @Katherine Johnson today?');
    await page.getByRole('button', { name: 'Add note' }).click();

    const stored = async () => (await stack.api.call('GET', `/ticket?id=${kettle.id}`)).body.replies;
    await expect.poll(async () => (await stored()).length, { timeout: 20_000 }).toBe(1);
    expect((await stored())[0]).toMatchObject({ internal: true, mentions: [katherine.id] });

    // Katherine's console: a toast naming who and where, the view's count, and the toast opens it.
    const toast = kat.page.locator('.toast', { hasText: `Grace Hopper mentioned you on #${kettle.number}` });
    await toast.waitFor({ timeout: 15_000 });
    await expect.poll(() => mentionsView.locator('.count').textContent(), { timeout: 15_000 }).toBe('1');
    await kat.page.screenshot({ path: `${SHOT_DIR}/mentions-toast.png` });
    await toast.getByRole('button', { name: 'Open' }).click();
    await kat.page.waitForURL(`**/console/tickets/${kettle.id}`);
    await kat.page.getByText('Can you call her, @Katherine Johnson today?', { exact: true }).waitFor();
    await mentionsView.click();
    await kat.page.locator('a.subject', { hasText: 'Broken kettle' }).waitFor();

    await kat.page.waitForLoadState('networkidle').catch(() => {});
    expect(refused).toEqual([]);
    expect([...kat.errors, ...writer.errors]).toEqual([]);
    await kat.close();
    await writer.close();
  });
});
