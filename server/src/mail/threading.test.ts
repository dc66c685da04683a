import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer } from '../test-support/server.js';
import {
  isSupportAddress,
  REPLY_MARKER,
  replyAddress,
  ticketOfReplyAddress,
  ticketsOfMessageIds,
} from './threading.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('reply addresses', () => {
  const secret = 'a-secret-of-forty-characters-0123456789ab';
  it('name their ticket only with the right token', () => {
    const a = replyAddress('help@shop.example', secret, 'tkt_AAAAAAAAAAAAAAAAAAAA');
    expect(a).toMatch(/^help\+tkt_AAAAAAAAAAAAAAAAAAAA\.[0-9a-f]{16}@shop\.example$/);
    expect(ticketOfReplyAddress(a, 'help@shop.example', secret)).toBe('tkt_AAAAAAAAAAAAAAAAAAAA');
    expect(ticketOfReplyAddress(a.toUpperCase().replace('TKT_', 'tkt_'), 'help@shop.example', secret)).toBe(
      'tkt_AAAAAAAAAAAAAAAAAAAA',
    ); // a relay that upper-cases the token and domain
    // Another ticket's id with this ticket's token, a token made with another secret, a wrong domain.
    const token = a.split('.')[1]!.split('@')[0]!;
    expect(
      ticketOfReplyAddress(`help+tkt_BBBBBBBBBBBBBBBBBBBB.${token}@shop.example`, 'help@shop.example', secret),
    ).toBe(undefined);
    expect(ticketOfReplyAddress(a, 'help@shop.example', 'another-secret')).toBeUndefined();
    expect(ticketOfReplyAddress(a.replace('shop.example', 'evil.example'), 'help@shop.example', secret)).toBe(
      undefined,
    );
    expect(ticketOfReplyAddress('help@shop.example', 'help@shop.example', secret)).toBeUndefined();
  });
  it('are support addresses; other local parts and domains are not', () => {
    expect(isSupportAddress('help@shop.example', 'help@shop.example')).toBe(true);
    expect(isSupportAddress('HELP@Shop.Example', 'help@shop.example')).toBe(true);
    expect(isSupportAddress('help+anything@shop.example', 'help@shop.example')).toBe(true);
    expect(isSupportAddress('helpdesk@shop.example', 'help@shop.example')).toBe(false);
    expect(isSupportAddress('help@shop.example.evil', 'help@shop.example')).toBe(false);
    expect(isSupportAddress('ceo@shop.example', 'help@shop.example')).toBe(false);
  });
  it('finds tickets in our own Message-IDs only', () => {
    expect(
      ticketsOfMessageIds(
        ['<tkt_A1@shop.example>', '<CAF=abc@mail.gmail.com>', '<tkt_B2.xyz@SHOP.example>', '<tkt_C3@evil.example>'],
        'help@shop.example',
      ),
    ).toEqual(['tkt_B2', 'tkt_A1']);
  });
});

describe('outgoing mail threads', () => {
  it('gives every mail its own Message-ID, refers to the ticket, and says which mail is automatic', async () => {
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const s = await startServer();
    cleanup.push(() => s.close());
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port },
        email_notify: {
          customer_on_create: true,
          customer_on_reply: true,
          agents_on_create: true,
          agent_emails: ['desk@shop.example'],
        },
      },
    });
    const t = await createTicket(s, { subject: 'Threads' });
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'On its way.', author: 'Grace' } });
    const mails = await smtp.waitFor(3);
    const confirmation = mails.find((m) => m.subject.startsWith('[#1001] We received'))!;
    const agents = mails.find((m) => m.subject.startsWith('[#1001] New ticket'))!;
    const answer = mails.find((m) => m.subject === 'Re: [#1001] Threads')!;
    const ids = mails.map((m) => m.messageId);
    expect(new Set(ids).size).toBe(3);
    for (const m of mails) {
      expect(m.messageId).toMatch(new RegExp(`^<${t.id}\\.[A-Za-z0-9]+@shop\\.example>$`));
      expect(m.references).toEqual([`<${t.id}@shop.example>`]);
      expect(m.inReplyTo).toBe(`<${t.id}@shop.example>`);
      expect(ticketsOfMessageIds([m.messageId], 'help@shop.example')).toEqual([t.id]);
    }
    expect(confirmation.autoSubmitted).toBe('auto-replied');
    expect(agents.autoSubmitted).toBe('auto-generated');
    expect(confirmation.autoResponseSuppress).toBe('All');
    expect(answer.autoSubmitted).toBe(''); // a person wrote it
    expect(answer.autoResponseSuppress).toBe('');
    // The customer's mails say where to answer: the ticket's own reply address, the same in both.
    expect(confirmation.replyTo).toMatch(new RegExp(`^help\\+${t.id}\\.[0-9a-f]{16}@shop\\.example$`));
    expect(answer.replyTo).toBe(confirmation.replyTo);
    expect(agents.replyTo).toBe('');
    expect(confirmation.text.startsWith(REPLY_MARKER)).toBe(true);
    expect(answer.text.startsWith(REPLY_MARKER)).toBe(true);
    expect(agents.text).not.toContain(REPLY_MARKER);
    // The secret behind the token is never shown.
    const all = JSON.stringify((await s.call('GET', '/admin?r=all')).body);
    expect(all).not.toContain('mail_token_secret');
  });
});
