import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { charsetFor, fixCharsets } from './charset.js';

// Bytes of other charsets, written out (Node encodes only UTF-8 and Latin-1 itself).
const NIHAO_GBK = Buffer.from('c4e3bac3a3acced2b5c4b6a9b5a5bbb9c3bbd3d0b5bda1a3', 'hex'); // 你好，我的订单还没有到。
const SJIS = Buffer.from('82b182f182c982bf82cd8141928d95b682aa93cd82a282c482a282dc82b982f18142', 'hex'); // こんにちは、注文が届いていません。

const mail = (head: string, body: Buffer) =>
  Buffer.concat([Buffer.from(head.replace(/\n/g, '\r\n') + '\r\n\r\n', 'latin1'), body, Buffer.from('\r\n')]);

describe('charsetFor', () => {
  it('trusts a label the bytes can be, and replaces one they cannot', () => {
    expect(charsetFor(Buffer.from('plain ascii'), undefined)).toBeUndefined();
    expect(charsetFor(Buffer.from('Grüße', 'latin1'), 'iso-8859-1')).toBeUndefined();
    expect(charsetFor(Buffer.from('Grüße'), 'us-ascii')).toBe('utf-8');
    expect(charsetFor(SJIS, 'iso-2022-jp')).toBe('Shift_JIS');
    expect(charsetFor(NIHAO_GBK, undefined)).toMatch(/^(GB18030|gbk|gb2312)$/i);
  });
});

describe('fixCharsets', () => {
  it('decodes Shift_JIS bytes labelled ISO-2022-JP, without U+FFFD', async () => {
    const raw = mail(
      'From: a@example.jp\nSubject: order\nContent-Type: text/plain; charset=ISO-2022-JP\nContent-Transfer-Encoding: 8bit',
      SJIS,
    );
    expect((await simpleParser(raw)).text).not.toContain('こんにちは');
    expect((await simpleParser(fixCharsets(raw))).text?.trim()).toBe('こんにちは、注文が届いていません。');
  });

  it('decodes an undeclared 8-bit GB2312 subject and body', async () => {
    const raw = Buffer.concat([
      Buffer.from('From: lin@example.cn\r\nSubject: ', 'latin1'),
      NIHAO_GBK,
      Buffer.from(
        '\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: 8bit\r\n\r\n',
        'latin1',
      ),
      NIHAO_GBK,
      Buffer.from('\r\n'),
    ]);
    const before = await simpleParser(raw);
    expect(before.subject).not.toBe('你好，我的订单还没有到。');
    const after = await simpleParser(fixCharsets(raw));
    expect(after.subject).toBe('你好，我的订单还没有到。');
    expect(after.text?.trim()).toBe('你好，我的订单还没有到。');
  });

  it('fixes a part inside a multipart mail and leaves a mail with fitting labels as it is', async () => {
    const raw = mail(
      'From: a@example.jp\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="b1"',
      Buffer.concat([
        Buffer.from('--b1\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: base64\r\n\r\n'),
        Buffer.from(SJIS.toString('base64')),
        Buffer.from('\r\n--b1--'),
      ]),
    );
    expect((await simpleParser(fixCharsets(raw))).text?.trim()).toBe('こんにちは、注文が届いていません。');
    const fine = mail('From: a@b.c\nContent-Type: text/plain; charset=utf-8', Buffer.from('Grüße'));
    expect(fixCharsets(fine)).toBe(fine);
  });
});
