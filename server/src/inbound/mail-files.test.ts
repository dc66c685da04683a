import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTo, startMailServer, SUPPORT } from '../test-support/mail-in.js';

// Issue 29: every file a mail carries becomes an attachment of its ticket, by name and size: a part
// sent x-uuencode (old clients) decoded, an image the HTML shows by cid: kept (not dropped), names in
// GB2312 and Big5 (RFC 2047, RFC 2231 and raw 8-bit) read in their charset, an unnamed image/jpg
// named from its type. The mail is written out byte for byte and sent over SMTP to the receiver.

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(48)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(48)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
// 发票 ("invoice") in GB2312 and 發票 in Big5, written out (Node encodes neither).
const FAPIAO_GB = Buffer.from('b7a2c6b1', 'hex');
const FAPIAO_BIG5 = Buffer.from('b56fb2bc', 'hex');
const NIHAO_GBK = Buffer.from('c4e3bac3a3acced2b5c4b6a9b5a5bbb9c3bbd3d0b5bda1a3', 'hex'); // 你好，我的订单还没有到。
const pct = (b: Buffer) => [...b].map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`).join('');

const raw = Buffer.concat([
  Buffer.from(
    [
      'From: Lin <lin@example.cn>',
      `To: ${SUPPORT}`,
      'Subject: invoices and a photo',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="mix"',
      '',
      '--mix',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: text/html; charset=gb2312',
      'Content-Transfer-Encoding: 8bit',
      '',
      '<p>The lid: <img src="cid:lid.1@example.cn" alt="lid"></p><p>',
    ].join('\r\n'),
    'latin1',
  ),
  // A Chinese client's text in GB2312: the raw 8-bit file name below is read in the text's charset.
  NIHAO_GBK,
  Buffer.from(
    [
      '</p>',
      '--rel',
      'Content-Type: image/png',
      'Content-ID: <lid.1@example.cn>',
      'Content-Disposition: inline',
      'Content-Transfer-Encoding: base64',
      '',
      PNG.toString('base64'),
      '--rel--',
      '--mix',
      `Content-Type: application/pdf; name="=?GB2312?B?${FAPIAO_GB.toString('base64')}?=.pdf"`,
      `Content-Disposition: attachment; filename="=?GB2312?B?${Buffer.concat([FAPIAO_GB, Buffer.from('-1.pdf')]).toString('base64')}?="`,
      'Content-Transfer-Encoding: base64',
      '',
      PDF.toString('base64'),
      '--mix',
      'Content-Type: application/pdf',
      `Content-Disposition: attachment; filename*=big5''${pct(FAPIAO_BIG5)}-2.pdf`,
      'Content-Transfer-Encoding: base64',
      '',
      PDF.toString('base64'),
      '--mix',
      'Content-Type: application/pdf',
      'Content-Disposition: attachment; filename="',
    ].join('\r\n'),
    'latin1',
  ),
  FAPIAO_GB,
  Buffer.from(
    [
      '-3.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      PDF.toString('base64'),
      '--mix',
      'Content-Type: image/jpg',
      'Content-Transfer-Encoding: base64',
      '',
      JPEG.toString('base64'),
      '--mix',
      'Content-Type: application/octet-stream',
      'Content-Transfer-Encoding: x-uuencode',
      '',
      // Wikipedia's uuencoding example: "Cat".
      'begin 644 cat.txt',
      '#0V%T',
      '`',
      'end',
      '--mix--',
      '',
    ].join('\r\n'),
    'latin1',
  ),
]);

let server: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

describe('the files of a mail', () => {
  it('all become attachments of the ticket, by name and size', async () => {
    const { s, port } = server;
    const spool = s.running.inbound.spool;
    const before = spool.outcomes.length;
    await sendTo(port, { raw, from: 'lin@example.cn', to: [SUPPORT] });
    await spool.idle();
    const outcome = spool.outcomes.slice(before)[0]!.outcome;
    expect(outcome.kind).toBe('created');
    const t = (await s.call('GET', `/ticket?id=${(outcome as { ticket: string }).ticket}`)).body;
    const files = t.attachments.map((a: { name: string; size: number }) => [a.name, a.size]);
    expect(files).toEqual(
      expect.arrayContaining([
        ['inline-1.png', PNG.length],
        ['发票-1.pdf', PDF.length],
        ['發票-2.pdf', PDF.length],
        ['发票-3.pdf', PDF.length],
        ['attachment-5.jpg', JPEG.length],
        ['cat.txt', 3],
      ]),
    );
    expect(files).toHaveLength(7); // and the original mail
    expect(t.message).toBe('The lid: [lid]\n\n你好，我的订单还没有到。');
    const cat = t.attachments.find((a: { name: string }) => a.name === 'cat.txt');
    expect((await s.call('GET', `/file?ticket_id=${t.id}&file_id=${cat.id}`)).text).toBe('Cat');
  });
});
