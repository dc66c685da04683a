import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { makeAgent, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
let colleague: TestAgent;
beforeAll(async () => {
  stack = await startStack();
  agent = await makeAgent(stack);
  colleague = await makeAgent(stack, { role: 'agent' });
});
afterAll(() => stack?.close());

/**
 * Records the page's real Notification calls (the API still runs: the subclass calls it): each
 * notification made, and how often the console asked for permission.
 */
const RECORD = `(() => {
  const Real = window.Notification;
  window.__made = [];
  window.__asked = 0;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__made.push({ title, body: options && options.body, n: this });
    }
    static requestPermission(...args) {
      window.__asked++;
      return Real.requestPermission(...args);
    }
  }
  window.Notification = Recorded;
})();`;

type Made = { title: string; body: string };
const made = (page: import('playwright-core').Page) =>
  page.evaluate(() =>
    (window as unknown as { __made: Made[] }).__made.map(({ title, body }) => ({ title, body })),
  ) as Promise<Made[]>;

describe('desktop notifications', () => {
  it('asks for permission only on the switch, then notifies of new tickets and customer replies for me while the tab is not focused; a click opens the ticket', async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(RECORD);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${stack.api.url}/console/`);
    await signIn(page, agent);
    const bell = page.getByRole('button', { name: 'Desktop notifications' });
    await bell.waitFor();
    expect(await bell.getAttribute('aria-pressed')).toBe('false');
    expect(await page.evaluate('window.__asked')).toBe(0);
    // Not allowed yet: the click asks the browser, which says no (headless), and the console tells why.
    await bell.click();
    await page.getByText('Notifications are blocked in this browser.').waitFor();
    expect(await page.evaluate('window.__asked')).toBe(1);
    expect(await bell.getAttribute('aria-pressed')).toBe('false');
    // Allowed (as the agent would in the browser's site settings): the switch turns on.
    await context.grantPermissions(['notifications'], { origin: stack.api.url });
    await bell.click();
    await expect.poll(() => bell.getAttribute('aria-pressed')).toBe('true');
    expect(await page.evaluate(() => localStorage.getItem('ticketing:console:notify'))).toBe('on');
    await page.getByTitle('Live updates on').waitFor();

    // While the agent looks at the tab, nothing pops up.
    await createTicket(stack.api, { subject: 'Seen in the list', name: 'Watched Customer' });
    await page.getByText('Seen in the list').first().waitFor({ timeout: 2000 });
    expect(await made(page)).toEqual([]);

    // The agent works in another tab: this one loses focus (for real: no focus emulation, another page in front).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    const other = await context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    expect(await page.evaluate(() => document.hasFocus())).toBe(false);

    const fresh = await createTicket(stack.api, {
      subject: 'My kettle leaks',
      name: 'Nora Newcomer',
      email: 'nora@example.com',
    });
    await expect
      .poll(() => made(page), { timeout: 2000 })
      .toEqual([{ title: 'New ticket from Nora Newcomer', body: 'My kettle leaks' }]);

    // A customer reply on a colleague's ticket is theirs to answer: no notification; on an unassigned one, yes.
    const theirs = await createTicket(stack.api, { subject: 'For the colleague', email: 'c@example.com' });
    expect(
      (await stack.api.call('POST', '/assign', { json: { ticket_id: theirs.id, agent_id: colleague.id } })).status,
    ).toBe(200);
    const reply = (id: string, email: string, message: string) =>
      stack.api.call('POST', '/reply', { key: stack.api.keys.pk, json: { ticket_id: id, email, message } });
    expect((await reply(theirs.id, 'c@example.com', 'Hello?')).status).toBe(201);
    // Support's own answers (here by secret key) notify nobody.
    const staff = await stack.api.call('POST', '/reply', { json: { ticket_id: fresh.id, message: 'Which model?' } });
    expect(staff.status).toBe(201);
    expect((await reply(fresh.id, 'nora@example.com', 'It drips on the table.')).status).toBe(201);
    // Events arrive in order: once the last is told, the ones before it were left out.
    await expect.poll(async () => (await made(page)).length, { timeout: 2000 }).toBe(3);
    expect(await made(page)).toEqual([
      { title: 'New ticket from Nora Newcomer', body: 'My kettle leaks' },
      // Unassigned when it was made: told then, and not when its customer wrote after it went to the colleague.
      { title: 'New ticket from Ada Lovelace', body: 'For the colleague' },
      { title: 'Nora Newcomer replied', body: 'My kettle leaks' },
    ]);
    await page.screenshot({ path: `${SHOTS}notifications-inbox.png` });

    // A click on the notification (as the system delivers it) brings the tab forward on that ticket.
    await page.evaluate(() => {
      const list = (window as unknown as { __made: { n: Notification }[] }).__made;
      list[list.length - 1]!.n.dispatchEvent(new Event('click'));
    });
    await page.waitForURL(`**/console/tickets/${fresh.id}`);
    await page.getByRole('heading', { name: 'My kettle leaks' }).waitFor();
    await page.locator('.thread').getByText('It drips on the table.').waitFor();

    // The switch is remembered by this browser.
    await page.reload();
    await page.getByRole('heading', { name: 'My kettle leaks' }).waitFor();
    expect(await page.getByRole('button', { name: 'Desktop notifications' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.evaluate('window.__asked')).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
