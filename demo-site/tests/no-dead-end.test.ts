import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, openWidget, shot, startStack, type Stack } from './harness.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

// Issue 31: a closed ticket takes a new message, and the widget speaks the page's language.
describe('the widget never dead-ends', () => {
  it('keeps a reply box on a closed ticket ("I still need help"), and the reply reopens it', async () => {
    const { page, context, errors } = await openPage(stack, 'index.html');
    await openWidget(page);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByLabel('Name').fill('Cleo Closed');
    await page.getByLabel('Email').fill('cleo@example.com');
    await page.getByLabel('Subject').fill('Lid still loose');
    await page.getByLabel('Message').fill('The lid wobbles.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: 'Lid still loose' }).waitFor();
    // Sent without mail set up: the widget does not promise an email.
    expect(await page.locator('[data-ticketing] .created').innerText()).not.toContain('email');

    const id = (await stack.api.call('GET', '/list?email=cleo@example.com')).body.data[0].id as string;
    await stack.api.call('POST', '/reply', { json: { ticket_id: id, message: 'Tightened it for you.' } });
    await stack.api.call('POST', '/status', { json: { ticket_id: id, status: 'closed' } });
    // Shown again (the panel reopened): the thread is reloaded and now closed.
    await page.keyboard.press('Escape');
    await openWidget(page);
    await page.getByText('Status: Closed').waitFor({ timeout: 15_000 });

    const box = page.getByLabel('I still need help');
    await box.fill('It came loose again.');
    await page.getByRole('button', { name: 'Reply', exact: true }).click();
    await page.getByText('Status: Open').waitFor();
    const stored = (await stack.api.call('GET', `/ticket?id=${id}`)).body;
    expect(stored.status).toBe('open');
    expect(stored.replies.at(-1)).toMatchObject({ message: 'It came loose again.', from_customer: true });
    // Every message shows when it was written.
    expect(await page.locator('[data-ticketing] .msg header time').count()).toBe(3);
    await shot(page, 'closed-ticket-reopened');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speaks French on a lang="fr" page without data-locale', async () => {
    const { page, context, errors } = await openPage(stack, 'fr.html');
    expect(await page.evaluate(() => navigator.languages[0])).toMatch(/^en/); // the browser asks for English
    await page.getByRole('button', { name: 'Contacter le support' }).waitFor();
    await openWidget(page);
    await page.getByRole('button', { name: 'Nouvelle demande' }).waitFor();
    expect(await page.getByRole('dialog').getAttribute('lang')).toBe('fr');
    expect(errors).toEqual([]);
    await context.close();
  });
});
