import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket } from '@ticketing/server/test-support';
import { deliver, SUPPORT } from '@ticketing/server/test-support/mail-in';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack, type TestAgent } from './harness.js';

let stack: Stack;
let agent: TestAgent;
beforeAll(async () => {
  stack = await startStack({ mail: true });
  agent = await makeAgent(stack);
});
afterAll(() => stack?.close());

// Issue 29: the quoted part of a mail is set aside from the message, and the console shows it under
// the message collapsed ("Show quoted text"), as mail clients do; nothing of the mail is lost.
const ANSWER = 'The order number is 4711.';
const QUESTION = 'Could you tell us your order number?';
const QUOTE = `On Mon, Nov 23, 2026 at 11:00 AM Shop Support <${SUPPORT}> wrote:\n> ${QUESTION}`;

describe('the quoted part of a mail in the console', () => {
  it('is collapsed under the message and opens to show the quote', async () => {
    // A customer writes in by mail, quoting an earlier mail of ours; a ticket made by the API quotes nothing.
    const other = await createTicket(stack.api, { subject: 'Another question', email: 'ada@example.com' });
    const outcome = await deliver(stack.api, stack.mailPort!, {
      from: 'Ada Lovelace <ada@example.com>',
      to: SUPPORT,
      subject: 'Where is my order',
      text: `${ANSWER}\n\n${QUOTE}\n`,
    });
    expect(outcome.kind).toBe('created');
    const id = (outcome as { ticket: string }).ticket;
    const { page, errors, close } = await openConsole(stack);
    await signIn(page, agent);
    await page.getByText(/Sign out/).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${other.id}`);
    await page.locator('.msg-customer').first().waitFor();
    expect(await page.locator('details.quoted').count()).toBe(0);
    await page.goto(`${stack.api.url}/console/tickets/${id}`);
    const message = page.locator('.msg-customer').filter({ hasText: ANSWER });
    await message.waitFor();
    const quoted = message.locator('details.quoted');
    expect(await quoted.count()).toBe(1);
    // Closed at first: the answer is on screen, the quote is not.
    expect(await quoted.getAttribute('open')).toBeNull();
    const quote = quoted.locator('.plain');
    expect(await quote.isVisible()).toBe(false);
    expect(await message.locator(':scope > .plain').innerText()).toBe(ANSWER);
    // Opened by its summary (a keyboard or a click), the quote reads as the mail had it.
    await quoted.getByText('Show quoted text').click();
    await quote.waitFor({ state: 'visible' });
    expect(await quote.innerText()).toContain(`> ${QUESTION}`);
    // The original mail stays downloadable beside it.
    expect(await message.getByRole('link', { name: 'Download original-mail.eml' }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}quoted-text.png` });
    expect(errors).toEqual([]);
    await close();
  });

  it('shows an agent (role agent) a reply by mail from Outlook on the web: quote collapsed, original mail downloadable as sent', async () => {
    const worker = await makeAgent(stack, { role: 'agent' });
    const created = await deliver(stack.api, stack.mailPort!, {
      from: 'Noor <noor@example.com>',
      to: SUPPORT,
      subject: 'Kettle lid',
      text: 'The lid of my kettle is cracked.',
    });
    expect(created.kind).toBe('created');
    const id = (created as { ticket: string }).ticket;
    // Outlook on the web answers in HTML only, its quoted history after divRplyFwdMsg (German labels),
    // In-Reply-To naming our own mail about the ticket.
    const answer = 'Ja, die Bestellnummer ist 4711.';
    const html = `<div class="elementToProof">${answer}</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>Von:</b> Shop Support &lt;${SUPPORT}&gt;<br><b>Gesendet:</b> Montag, 23. November 2026 11:00<br><b>An:</b> Noor &lt;noor@example.com&gt;<br><b>Betreff:</b> Kettle lid</font><div>&nbsp;</div></div><div>${QUESTION}</div>`;
    const raw = Buffer.from(
      [
        'From: Noor <noor@example.com>',
        `To: ${SUPPORT}`,
        'Subject: AW: Kettle lid',
        `In-Reply-To: <${id}.owa1@shop.example>`,
        'MIME-Version: 1.0',
        'Content-Type: text/html; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        html,
        '',
      ].join('\r\n'),
    );
    const replied = await deliver(stack.api, stack.mailPort!, { raw, from: 'noor@example.com', to: [SUPPORT] });
    expect(replied).toMatchObject({ kind: 'replied', ticket: id, unverified: true });

    const { page, errors, close } = await openConsole(stack);
    await signIn(page, worker);
    await page.getByText(/Sign out/).waitFor();
    await page.goto(`${stack.api.url}/console/tickets/${id}`);
    // Threaded by In-Reply-To alone (no signed Reply-To, no DKIM) it shows as from an unverified sender.
    const message = page.locator('.msg').filter({ hasText: answer });
    await message.waitFor();
    expect(await message.locator(':scope > .plain').innerText()).toBe(answer);
    const quoted = message.locator('details.quoted');
    expect(await quoted.getAttribute('open')).toBeNull();
    await quoted.getByText('Show quoted text').click();
    const quote = quoted.locator('.plain');
    await quote.waitFor({ state: 'visible' });
    expect(await quote.innerText()).toContain('Gesendet:');
    expect(await quote.innerText()).toContain(QUESTION);
    // The original mail downloads as it was sent, byte for byte, with the agent's session.
    const link = message.getByRole('link', { name: 'Download original-mail.eml' });
    const href = await link.getAttribute('href');
    const downloaded = await page.evaluate(async (url) => {
      const res = await fetch(url!);
      return { status: res.status, bytes: [...new Uint8Array(await res.arrayBuffer())] };
    }, href);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(downloaded.bytes).equals(raw)).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });
});
