import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { mailSender } from './sender.js';

const parse = (headers: string) => simpleParser(Buffer.from(`${headers}\r\nSubject: x\r\n\r\nHi\r\n`));

describe('mailSender', () => {
  it('reads From by RFC 5322, with the name mailparser decoded', async () => {
    expect(mailSender(await parse('From: =?UTF-8?B?5p6X5Lyf?= <Lin@Example.cn>'))).toEqual({
      address: 'lin@example.cn',
      name: '林伟',
    });
    expect(mailSender(await parse('From: anna@example.com'))).toEqual({ address: 'anna@example.com', name: undefined });
  });

  it('refuses to guess an address from a From that is none', async () => {
    const mail = await parse('From: "your secret past" <power quadrant system@example.com>');
    expect(mailSender(mail)).toEqual({ error: expect.stringContaining('is not an address (RFC 5322)') });
    expect(mailSender(await parse('To: a@b.c'))).toEqual({ error: 'the mail names no sender address' });
  });

  it('takes the Sender of a From with several mailboxes, and refuses without one', async () => {
    const two = 'From: Alice <alice@example.org>, Bob Builder <bob@example.org>';
    expect(mailSender(await parse(`${two}\r\nSender: bob@example.org`))).toEqual({
      address: 'bob@example.org',
      name: 'Bob Builder',
    });
    expect(mailSender(await parse(two))).toEqual({ error: expect.stringContaining('no Sender header') });
  });
});
