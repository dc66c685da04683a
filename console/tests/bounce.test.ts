import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { sendTo, SUPPORT } from '@ticketing/server/test-support/mail-in';
import { makeAgent, openConsole, refusals, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

// A support reply whose mail bounced later shows so under the reply (issue 30), seen by an agent with
// role `agent`: the reply's mail goes to a real SMTP server on loopback, the bounce (Postfix's report,
// RFC 3464) comes back over SMTP to the server's built-in receiver, and the open ticket shows it live.

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack({ mail: true });
  agent = await makeAgent(stack, { name: 'Grace Agent', role: 'agent' });
});
afterAll(() => stack?.close());

/** Postfix's bounce of the mail with `messageId`, to `recipient`. */
const bounce = (messageId: string, recipient: string) =>
  [
    'From: MAILER-DAEMON@mx.shop.example (Mail Delivery System)',
    'Subject: Undelivered Mail Returned to Sender',
    `To: ${SUPPORT}`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
    '',
    '--B',
    'Content-Type: text/plain',
    '',
    `<${recipient}>: host mx.customer.example[203.0.113.9] said: 550 5.1.1`,
    `    <${recipient}>: Recipient address rejected: User unknown`,
    '--B',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.shop.example',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    `Diagnostic-Code: smtp; 550 5.1.1 <${recipient}>: Recipient address rejected: User unknown`,
    '--B',
    'Content-Type: text/rfc822-headers',
    '',
    `From: ${SUPPORT}`,
    `Message-ID: ${messageId}`,
    '--B--',
    '',
  ].join('\r\n');

describe('a bounced reply in the thread', () => {
  it('shows "Bounced" with the reason, without a reload; no answer of 400 or more', async () => {
    const { api } = stack;
    const t = await createTicket(api, { email: 'gone@customer.example', subject: 'Lid missing', name: 'Carla' });
    await api.call('POST', '/reply', { json: { ticket_id: t.id, message: 'A new lid is on its way.' } });
    let messageId = '';
    for (let i = 0; i < 200 && !messageId; i++) {
      const d = (await api.call('GET', `/ticket?id=${t.id}`)).body.replies.at(-1)?.delivery;
      if (d?.state === 'sent') messageId = d.message_id;
      else await new Promise((ok) => setTimeout(ok, 100));
    }
    expect(messageId).toMatch(/^<tkt_.+@shop\.example>$/);

    const { page, errors, close } = await openConsole(stack, '/console/');
    await page.getByLabel('Email').waitFor(); // signed out: the console's own 401 for /session comes first
    const refused = refusals(page);
    await signIn(page, agent);
    await page.getByRole('button', { name: /Sign out/ }).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${t.id}`);
    await page.getByRole('heading', { name: 'Lid missing' }).waitFor();
    await page.locator('.thread .msg-support .delivery', { hasText: 'Sent' }).waitFor();

    await sendTo(stack.mailPort!, { raw: bounce(messageId, t.email), from: '', to: [SUPPORT] });
    const bounced = page.locator('.thread .msg-support .delivery-bounced');
    await bounced.waitFor({ timeout: 20_000 });
    expect(await bounced.textContent()).toBe(
      'Bounced: 550 5.1.1 <gone@customer.example>: Recipient address rejected: User unknown',
    );
    // Neither a new ticket nor a message from MAILER-DAEMON.
    expect(await page.locator('.thread .msg').count()).toBe(2);
    expect((await api.call('GET', '/list')).body.total).toBe(1);
    await page.screenshot({ path: `${SHOTS}delivery-bounced.png` });
    const reloads = await page.evaluate(() => performance.getEntriesByType('navigation').length);
    expect(reloads).toBe(1);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
