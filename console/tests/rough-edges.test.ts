import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer } from '@ticketing/server/test-support';
import { CHROMIUM, CHROMIUM_ARGS } from '../../demo-site/tests/chromium.js';
import { makeAgent, openConsole, refusals, signIn, SHOTS, type Stack, type TestAgent } from './harness.js';

// Rough edges found on a team's first day (issue 30), each walked in Chromium against the real server,
// signed in as an admin and as an agent with role `agent` (whose walk gets no answer of 400 or more).

let stack: Stack;
let admin: TestAgent;
let agent: TestAgent;
let ticketId: string;
beforeAll(async () => {
  // The webhook goes to a receiver on loopback, which needs TICKETING_WEBHOOKS_ALLOW_LOCAL.
  const api = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0', TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  stack = { api, browser, close: () => browser.close().then(() => api.close()) };
  admin = await makeAgent(stack, { name: 'Ada Admin', role: 'admin' });
  agent = await makeAgent(stack, { name: 'Grace Agent', role: 'agent' });
  ticketId = (await createTicket(stack.api, { subject: 'The lid does not fit', name: 'Carla Customer' })).id;
  await stack.api.call('POST', '/tags', { json: { ticket_id: ticketId, add: ['vip'] } });
});
afterAll(() => stack?.close());

async function signedIn(who: TestAgent, path = '/console/', width = 1280) {
  const opened = await openConsole(stack, '/console/', width);
  await opened.page.getByLabel('Email').waitFor();
  const refused = refusals(opened.page);
  await signIn(opened.page, who);
  await opened.page.getByRole('button', { name: /Sign out/ }).waitFor();
  if (path !== '/console/') await opened.page.goto(`${stack.api.url}${path}`);
  return { ...opened, refused };
}

/** axe's heading-order rule alone (a best practice, outside the WCAG tags the a11y test runs). */
async function headingOrder(page: Page): Promise<string[]> {
  const axe = (await import('axe-core')).default;
  if ((await page.evaluate('typeof window.axe')) === 'undefined') await page.evaluate(axe.source);
  return page.evaluate(async () => {
    type Result = { violations: { id: string; nodes: { target: string[] }[] }[] };
    const run = (window as unknown as { axe: { run(...a: unknown[]): Promise<Result> } }).axe.run;
    const { violations } = await run(document, { runOnly: { type: 'rule', values: ['heading-order'] } });
    return violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  });
}

describe('rough edges of the console', () => {
  it('the ticket view has its headings in order, and ? lists Ctrl+Enter (as role agent, no 4xx)', async () => {
    const { page, refused, errors, close } = await signedIn(agent, `/console/tickets/${ticketId}`);
    await page.getByRole('heading', { name: 'The lid does not fit', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Tags' }).waitFor();
    expect(await headingOrder(page)).toEqual([]);
    // No mail set up: said above the reply box (to an agent without the admin's link to the settings).
    const mailOff = page.getByRole('note').filter({ hasText: 'Mail is not set up' });
    await mailOff.waitFor();
    expect(await mailOff.getByRole('link').count()).toBe(0);

    await page.locator('body').press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await expect.poll(() => dialog.locator('kbd').allTextContents()).toContain('Ctrl+Enter');
    expect(await dialog.innerText()).toContain('Send the reply or note');
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  for (const [who, language] of [
    ['admin', 'English'],
    ['admin', 'Deutsch'],
    ['agent', 'English'],
  ] as const)
    it(`the phone header (375 px) shows every link whole, for an ${who} in ${language}`, async () => {
      const { page, refused, errors, close } = await signedIn(who === 'admin' ? admin : agent, '/console/', 375);
      if (language === 'Deutsch') {
        // The language select hides on a phone: switch it at a wide width, as the agent's setting stays.
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.getByLabel('Language').selectOption({ label: 'Deutsch' });
        await page.setViewportSize({ width: 375, height: 844 });
      }
      const nav = page.locator('header.top nav');
      const names =
        language === 'Deutsch'
          ? ['Posteingang', 'Berichte', 'Einstellungen', 'Profil']
          : ['Inbox', 'Reports', ...(who === 'admin' ? ['Settings'] : []), 'Profile'];
      await nav.getByRole('link', { name: names.at(-1)! }).waitFor();
      expect(await nav.getByRole('link').allInnerTexts()).toEqual(names);
      // Whole and on screen: inside the viewport and inside the nav (nothing scrolled away or cut).
      const boxes = await nav.evaluate((el) => {
        const outer = el.getBoundingClientRect();
        return {
          scrolls: el.scrollWidth > el.clientWidth + 1,
          links: [...el.querySelectorAll('a')].map((a) => {
            const r = a.getBoundingClientRect();
            return {
              text: a.textContent,
              inside:
                r.left >= outer.left - 0.5 && r.right <= outer.right + 0.5 && r.left >= 0 && r.right <= innerWidth,
              width: r.width,
            };
          }),
        };
      });
      expect(boxes.scrolls).toBe(false);
      for (const l of boxes.links) expect(l, JSON.stringify(l)).toMatchObject({ inside: true });
      // The tools are still there beside it.
      await page.getByRole('button', { name: /Sign out|Abmelden/ }).waitFor();
      expect(await page.getByRole('button', { name: /Sign out|Abmelden/ }).isVisible()).toBe(true);
      await page.screenshot({ path: `${SHOTS}phone-header-${who}-${language}-375.png` });
      // A link at the end works: the profile opens.
      await nav.getByRole('link', { name: names.at(-1)! }).click();
      await page.waitForURL(/\/console\/profile$/);
      if (who === 'agent') expect(refused).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    });

  it('says plainly that the browser refuses passkeys at 127.0.0.1, and where they work (no 4xx)', async () => {
    const { page, refused, errors, close } = await signedIn(agent, '/console/profile');
    expect(new URL(page.url()).hostname).toBe('127.0.0.1');
    const port = new URL(page.url()).port;
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const said = page.getByText(`Open the console at http://localhost:${port}/console/profile`);
    await said.waitFor();
    expect(await said.innerText()).toContain('does not allow passkeys at http://127.0.0.1');
    expect(await page.getByText('did not finish').count()).toBe(0);
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').getByText(`http://localhost:${port}/console/`).waitFor();
    expect(await page.getByText('did not finish').count()).toBe(0);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('shows the webhook signing secret once after saving, with Copy, and it verifies the signature', async () => {
    // The receiver the webhook goes to: keeps what comes in, answers 200.
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const { page, errors, close } = await signedIn(admin, '/console/settings/modules');
    await page.getByLabel('Send events to a webhook').check();
    await page.locator('#webhook-url').fill(url);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const once = page.locator('.once');
    await once.getByText('The webhook’s signing secret').waitFor();
    const secret = (await once.locator('code').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await once.getByRole('button', { name: 'Copy' }).waitFor();
    // Only now: the stored setting says "set", never the secret.
    expect(await page.locator('#webhook-secret').innerText()).toBe('Set (not shown)');
    await page.screenshot({ path: `${SHOTS}webhook-secret-once-1280.png` });

    // It is the secret deliveries are signed with: the test event's signature checks out with it.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => got.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(got[0]!.headers['ticketing-signature']))!;
    expect(createHmac('sha256', secret).update(`${t}.${got[0]!.body}`).digest('hex')).toBe(v1);

    // Done puts it away for good; a reload shows it nowhere.
    await once.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.once').count()).toBe(0);
    await page.reload();
    await page.locator('#webhook-secret').waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(errors).toEqual([]);
    await close();
    await new Promise((ok) => receiver.close(ok));
  });

  it('a fixed refused value loses its red error; leaving a section with unsaved edits asks first', async () => {
    const { page, errors, close } = await signedIn(admin, '/console/settings/design');
    const logo = page.locator('#design-color');
    const save = page.getByRole('button', { name: 'Save', exact: true });
    // (Typed again until it takes: a keystroke while the screen is still settling can be lost.)
    await expect
      .poll(async () => {
        await logo.fill('#12345');
        return save.isEnabled();
      })
      .toBe(true);
    await save.click();
    const logoError = page.locator('#design-color-err');
    await logoError.waitFor();
    expect(await logo.getAttribute('aria-invalid')).toBe('true');
    // Fixed: the error goes at once, before any save, and the bar no longer says "fix".
    await logo.fill('#123456');
    await expect.poll(() => logoError.count()).toBe(0);
    expect(await logo.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('.save-bar .status').innerText()).not.toContain('need a fix');

    // An unsaved edit, then a click on another section: asked; "Cancel" keeps the page and the edit.
    await page.locator('#design-title').fill('Help desk');
    const questions: string[] = [];
    page.once('dialog', (d) => void (questions.push(d.message()), d.dismiss()));
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Form' }).click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toContain('unsaved changes');
    expect(new URL(page.url()).pathname).toBe('/console/settings/design');
    expect(await page.locator('#design-title').inputValue()).toBe('Help desk');
    // The header's links ask too; "OK" leaves and drops the edit.
    page.once('dialog', (d) => void (questions.push(d.message()), d.accept()));
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.waitForURL((u) => u.pathname === '/console/');
    expect(questions).toHaveLength(2);
    // Nothing unsaved: no question.
    await page.goto(`${stack.api.url}/console/settings/design`);
    await page.locator('#design-title').waitFor();
    expect(await page.locator('#design-title').inputValue()).not.toBe('Help desk');
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Form' }).click();
    await page.waitForURL(/\/settings\/form$/);
    expect(questions).toHaveLength(2);
    expect(errors).toEqual([]);
    await close();
  });

  it('warns above the reply box while mail is not set up, and no longer once it is', async () => {
    const first = await signedIn(admin, `/console/tickets/${ticketId}`);
    const mailOff = first.page.getByRole('note').filter({ hasText: 'Mail is not set up' });
    await mailOff.waitFor();
    expect(await mailOff.getByRole('link', { name: 'Set up mail' }).getAttribute('href')).toBe(
      '/console/settings/mail',
    );
    await first.close();
    const set = await stack.api.call('POST', '/admin?r=mail', {
      json: { from_address: 'support@shop.example', smtp: { host: '127.0.0.1', port: 2525 } },
    });
    expect(set.status).toBe(200);
    const { page, refused, errors, close } = await signedIn(agent, `/console/tickets/${ticketId}`);
    await page.locator('#reply-text').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByText('Mail is not set up').count()).toBe(0);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
    await stack.api.call('POST', '/admin?r=mail', { json: {} });
  });

  it('says a refused value and a failed test mail in the German console in German, with what to do', async () => {
    const { page, errors, close } = await signedIn(admin, '/console/settings/design');
    await page.getByLabel('Language').selectOption({ label: 'Deutsch' });
    const title = page.locator('#design-title');
    const save = page.getByRole('button', { name: 'Speichern', exact: true });
    await expect
      .poll(async () => {
        await title.fill('x'.repeat(61));
        return save.isEnabled();
      })
      .toBe(true);
    await save.click();
    const titleError = page.locator('#design-title-err');
    await titleError.waitFor();
    expect(await titleError.innerText()).toBe('Zu lang: höchstens 60 Zeichen. Bitte kürzen.');

    // The test mail to a mail server that is not there: the reason and the fix in German, not the server's English.
    const set = await stack.api.call('POST', '/admin?r=mail', {
      json: { from_address: 'support@shop.example', smtp: { host: '127.0.0.1', port: 9 } },
    });
    expect(set.status).toBe(200);
    page.once('dialog', (d) => void d.accept()); // the unsaved title is left behind
    await page
      .getByRole('navigation', { name: 'Bereiche der Einstellungen' })
      .getByRole('link', { name: 'E-Mail' })
      .click();
    await page.locator('#mail-test-to').fill('ada@shop.example');
    await page.locator('form:has(#mail-test-to) button[type=submit]').click();
    const result = page.locator('.mail-test-result p');
    await result.waitFor({ timeout: 20_000 });
    const text = await result.innerText();
    expect(text).toContain('Keine Verbindung zum Mailserver: SMTP-Host und Port prüfen');
    expect(text).not.toContain('could not connect');
    await page.screenshot({ path: `${SHOTS}german-errors-1280.png` });
    expect(errors).toEqual([]);
    await close();
    await stack.api.call('POST', '/admin?r=mail', { json: {} });
  });
});
