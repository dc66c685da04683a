import { convert } from 'html-to-text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';

// Issue 29: the quoted history of an HTML-only reply goes to the quoted part, found where the
// client marks it, and the answer written above, below or between stays. Each mail below is written
// in the shape its client emits, from public samples (cited per case); names, dates and words are
// ours. Each goes out as an HTML-only mail over SMTP to the built-in receiver and becomes a ticket.

const QUESTION = 'Could you tell us your order number?';
const quoteBody = `<div>Hello,</div><div><br></div><div>${QUESTION}</div><div><br></div><div>Shop Support</div>`;

interface Case {
  client: string;
  html: string;
  /** The ticket's message, exactly. */
  message: string;
  /** Snippets the quoted part holds (and the message does not). */
  quoted: string[];
}

const CASES: Case[] = [
  {
    // Gmail's container with its attribution line (gmail_attr) and blockquote.gmail_quote, as in
    // planer's test 'handles gmail quotes' and mailgun/talon's gmail fixtures; Gmail in Korean.
    client: 'Gmail (Korean)',
    html: `<div dir="ltr">네, 주문 번호는 4711입니다.<div><br></div><div>김민지</div></div><br><div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">2026년 11월 23일 (월) 오전 11:00, Shop Support &lt;<a href="mailto:help@shop.example">help@shop.example</a>&gt;님이 작성:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">${quoteBody}</blockquote></div>`,
    message: '네, 주문 번호는 4711입니다.\n\n김민지',
    quoted: ['님이 작성:', QUESTION],
  },
  {
    // Outlook on the web / Outlook.com: appendonsend, the rule and divRplyFwdMsg, then the quoted
    // mail as siblings (planer test/examples/html/office-365.html; mailgun/talon); Korean labels.
    client: 'Outlook.com (Korean)',
    html: `<html><head><style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr"><div class="elementToProof" style="font-family: Aptos, Aptos_EmbeddedFont, Calibri, Helvetica, sans-serif; font-size: 12pt;">네, 주문 번호는 4711입니다.</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>보낸 사람:</b> Shop Support &lt;help@shop.example&gt;<br><b>보낸 날짜:</b> 2026년 11월 23일 월요일 오전 11:00<br><b>받는 사람:</b> 김민지 &lt;minji@example.kr&gt;<br><b>제목:</b> Re: 주문</font><div>&nbsp;</div></div><div dir="ltr">${quoteBody}</div></body></html>`,
    message: '네, 주문 번호는 4711입니다.',
    quoted: ['보낸 사람:', QUESTION],
  },
  {
    // Hotmail: <hr id="stopSpelling"> and the header lines after it (mailgun/talon
    // tests/fixtures/html_replies/hotmail.html).
    client: 'Hotmail',
    html: `<html>\n<head>\n<style><!--\n.hmmessage P\n{\nmargin:0px;\npadding:0px\n}\nbody.hmmessage\n{\nfont-size: 12pt;\nfont-family:Calibri\n}\n--></style></head>\n<body class='hmmessage'><div dir='ltr'>Hi. The number is 4711.<div><br></div><div>Thanks,</div><div>Alex<br><br><div><hr id="stopSpelling">Date: Mon, 23 Nov 2026 11:00:00 +0100<br>Subject: Your order<br>From: ${SUPPORT}<br>To: alex.l@example.com<br><br><div dir="ltr">${quoteBody}</div></div></div> \t\t \t   \t\t  </div></body>\n</html>`,
    message: 'Hi. The number is 4711.\n\nThanks,\nAlex',
    quoted: ['Subject: Your order', QUESTION],
  },
  {
    // Outlook desktop: WordSection1, MsoNormal paragraphs and the From block in the box with a top
    // border (planer's Outlook 2007/Android splitter styles; mailgun/talon); Greek labels.
    client: 'Outlook desktop (Greek)',
    html: `<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style><!--p.MsoNormal{margin:0cm;font-size:11.0pt;font-family:"Calibri",sans-serif;}--></style></head><body lang=EL link="#0563C1" vlink="#954F72"><div class=WordSection1><p class=MsoNormal>Ναι, ο αριθμός παραγγελίας είναι 4711.<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><div><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal><b>Από:</b> Shop Support &lt;help@shop.example&gt; <br><b>Στάλθηκε:</b> Δευτέρα, 23 Νοεμβρίου 2026 11:00 πμ<br><b>Προς:</b> Νίκος &lt;nikos@example.gr&gt;<br><b>Θέμα:</b> Re: Παραγγελία<o:p></o:p></p></div></div><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>${QUESTION}<o:p></o:p></p></div></body></html>`,
    message: 'Ναι, ο αριθμός παραγγελίας είναι 4711.',
    quoted: ['Στάλθηκε:', QUESTION],
  },
  {
    // Windows Mail: the From block in its own bordered box (mailgun/talon
    // tests/fixtures/html_replies/windows_mail.html, Russian labels as there).
    client: 'Windows Mail (Russian)',
    html: `<html>\n<head>\n<meta name="generator" content="Windows Mail 17.5.9600.20498">\n</head>\n<body dir="ltr">\n<div data-externalstyle="false" dir="ltr" style="font-family: 'Calibri', 'Segoe UI', 'Meiryo', 'Microsoft YaHei UI', 'Microsoft JhengHei UI', 'Malgun Gothic', 'sans-serif';font-size:12pt;"><div>Номер заказа 4711.</div><div><br></div><div>Спасибо,</div><div>Алекс<br></div><div data-signatureblock="true"><div><br></div><div><br></div></div><div style="padding-top: 5px; border-top-color: rgb(229, 229, 229); border-top-width: 1px; border-top-style: solid;"><div><font face=" 'Calibri', 'Segoe UI', 'Meiryo', 'Microsoft YaHei UI', 'Microsoft JhengHei UI', 'Malgun Gothic', 'sans-serif'" style='line-height: 15pt; letter-spacing: 0.02em; font-size: 12pt;'><b>От:</b>&nbsp;<a href="mailto:${SUPPORT}" target="_parent">Shop Support</a><br><b>Отправлено:</b>&nbsp;понедельник, 23 ноября 2026 г. 11:00<br><b>Кому:</b>&nbsp;<a href="mailto:alex@example.ru" target="_parent">Алекс</a></font></div></div><div><br></div><div dir="">${quoteBody}</div></div>\n</body>\n</html>`,
    message: 'Номер заказа 4711.\n\nСпасибо,\nАлекс',
    quoted: ['Отправлено:', QUESTION],
  },
  {
    // Yahoo: the yahoo_quoted container, no blockquote, its attribution in German as Yahoo writes
    // it ("… hat … Folgendes geschrieben:"; shape from a Yahoo reply quoted in the usrp-users list
    // archive, and the splitters of rspamd's lua_util).
    client: 'Yahoo (German)',
    html: `<html><head></head><body><div class="ydp7b0fd3c7yahoo-style-wrap" style="font-family:Helvetica Neue, Helvetica, Arial, sans-serif;font-size:16px;"><div dir="ltr" data-setdir="false">Danke, das Paket ist heute angekommen.</div></div><div id="yahoo_quoted_9183161140" class="yahoo_quoted"><div style="font-family:'Helvetica Neue', Helvetica, Arial, sans-serif;font-size:13px;color:#26282a;"><div>Am Montag, 23. November 2026, 11:00:00 MEZ hat Shop Support &lt;help@shop.example&gt; Folgendes geschrieben:</div><div><br></div><div><br></div><div><div id="yiv0516350217"><div>${quoteBody}</div></div></div></div></div></body></html>`,
    message: 'Danke, das Paket ist heute angekommen.',
    quoted: ['Folgendes geschrieben:', QUESTION],
  },
  {
    // Thunderbird, the answer written below the quote: moz-cite-prefix and blockquote type=cite
    // with moz-quote-pre (as in the xen-devel and qemu-devel archives' Thunderbird mails).
    client: 'Thunderbird (answer below)',
    html: `<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n  </head>\n  <body>\n    <p><br>\n    </p>\n    <div class="moz-cite-prefix">Am 23.11.26 um 11:00 schrieb Shop Support:<br>\n    </div>\n    <blockquote type="cite" cite="mid:abc.123@shop.example">\n      <pre wrap="" class="moz-quote-pre">Hello,\n\n${QUESTION}\n</pre>\n    </blockquote>\n    <p>Die Nummer ist 4711.</p>\n    <p>Jan<br>\n    </p>\n  </body>\n</html>`,
    message: 'Die Nummer ist 4711.\n\nJan',
    quoted: ['schrieb Shop Support:', QUESTION],
  },
  {
    // Apple Mail: the attribution inside blockquote type=cite, Apple-interchange-newline (macOS
    // Mail's reply layout; mailgun/talon standard_replies/apple_mail_2.eml); in French, a thank-you
    // written below the quote too.
    client: 'Apple Mail (French, answer below too)',
    html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;">Oui, c’est la commande 4711.<br id="lineBreakAtBeginningOfMessage"><div><br><blockquote type="cite"><div>Le 23 nov. 2026 à 11:00, Shop Support &lt;help@shop.example&gt; a écrit :</div><br class="Apple-interchange-newline"><div>${quoteBody}</div></blockquote></div><br><div>Merci,</div><div>Claire</div></body></html>`,
    message: 'Oui, c’est la commande 4711.\n\nMerci,\nClaire',
    quoted: ['a écrit :', QUESTION],
  },
  {
    // Mail.ru: the attribution line, then a bordered blockquote (mailgun/talon
    // tests/fixtures/html_replies/mail_ru.html), with an answer written below it too.
    client: 'Mail.ru (answer below too)',
    html: `\n<HTML><BODY><p>Номер заказа 4711.</p><br><br><br>Mon, 23 Nov 2026 11:00:51 +0300 от Shop Support &lt;help@shop.example&gt;:<br>\n<blockquote style="border-left:1px solid #0857A6; margin:10px; padding:0 0 0 10px;">\n\t<div id="">\n<div class="js-helper js-readmsg-msg">\n\t<style type="text/css"></style>\n \t<div>\n\t\t<base target="_self" href="https://e.mail.ru/">\n\t\t\t<div id="style_14037768550000001020_BODY">${quoteBody}\n</div>\n\t</div>\n</div>\n</div>\n</blockquote>\n<p>P.S. Посылка пришла.</p><br></BODY></HTML>`,
    message: 'Номер заказа 4711.\n\nP.S. Посылка пришла.',
    quoted: ['от Shop Support <help@shop.example>:', QUESTION],
  },
];

let server: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

/** Sends an HTML-only mail (or multipart/alternative, with a plain part) over SMTP; the new ticket as support sees it. */
async function ticketOf(html: string, subject: string, text?: string) {
  const outcome = await deliver(server.s, server.port, {
    from: 'Customer <customer@example.com>',
    to: SUPPORT,
    subject,
    html,
    ...(text === undefined ? {} : { text }),
  });
  expect(outcome.kind).toBe('created');
  return (await server.s.call('GET', `/ticket?id=${(outcome as { ticket: string }).ticket}`)).body;
}

describe('the quoted history of an HTML-only reply', () => {
  it.each(CASES)('from $client goes to the quoted part', async ({ client, html, message, quoted }) => {
    const t = await ticketOf(html, `Re: order (${client})`);
    expect(t.message).toBe(message);
    for (const q of quoted) {
      expect(t.quoted).toContain(q);
      expect(t.message).not.toContain(q);
    }
  });

  it('keeps answers written between the quotes with their questions', async () => {
    // Gmail keeps answers typed into the quote inside its container, between blockquotes.
    const html = `<div dir="ltr">See below.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Nov 23, 2026 at 11:00 AM Shop Support &lt;help@shop.example&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">${QUESTION}</blockquote><div>It is 4711.</div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">Which colour?</blockquote><div>Blue.</div></div>`;
    const t = await ticketOf(html, 'Re: order (interleaved)');
    for (const s of ['See below.', QUESTION, 'It is 4711.', 'Which colour?', 'Blue.']) expect(t.message).toContain(s);
  });

  it("keeps the customer's own indented text (Gmail's Indent button) in the message", async () => {
    // A bare blockquote under a line ending in ':' with a number is no quote without an address.
    const html = `<div dir="ltr">Order 12345 has these items:<blockquote style="margin:0 0 0 40px;border:none;padding:0px"><div>2 kettles</div><div>1 lid</div></blockquote><div>Please send the lid.</div></div>`;
    const t = await ticketOf(html, 'Missing lid (indent)');
    for (const s of ['Order 12345 has these items:', '2 kettles', '1 lid', 'Please send the lid.'])
      expect(t.message).toContain(s);
    expect(t.quoted ?? '').not.toContain('kettles');
  });

  it('keeps a forwarded mail whole', async () => {
    const html = `<div dir="ltr">Please see the mail from the courier.<br><br><div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">---------- Forwarded message ---------<br>From: <strong class="gmail_sendername" dir="auto">Courier</strong> <span dir="auto">&lt;<a href="mailto:track@courier.example">track@courier.example</a>&gt;</span><br>Date: Mon, Nov 23, 2026 at 9:00 AM<br>Subject: Parcel 00340434161094042557<br>To: &lt;<a href="mailto:ada@example.com">ada@example.com</a>&gt;<br></div><br><br><div>Your parcel could not be delivered.</div></div></div>`;
    const t = await ticketOf(html, 'Fwd: Parcel');
    expect(t.message).toContain('Please see the mail from the courier.');
    expect(t.message).toContain('Your parcel could not be delivered.');
  });
});

// The same replies as multipart/alternative, their plain part made from the HTML as Outlook and
// Windows Mail make it: no ">" marks, the header block in the mail's language, so the text alone no
// longer tells where the quote starts. The HTML part's marks decide then.
const OUTLOOK_FAMILY = ['Outlook.com (Korean)', 'Hotmail', 'Outlook desktop (Greek)', 'Windows Mail (Russian)'];

describe('the quoted history of a multipart/alternative reply', () => {
  it.each(CASES.filter((c) => OUTLOOK_FAMILY.includes(c.client)))(
    'from $client goes to the quoted part where the plain part lost its boundary',
    async ({ client, html, message, quoted }) => {
      const text = convert(html, { wordwrap: 76, selectors: [{ selector: 'a', options: { ignoreHref: true } }] });
      // The plain part holds every word of the quote, unmarked.
      expect(text).toContain(QUESTION);
      expect(text).not.toMatch(/^>/m);
      const t = await ticketOf(html, `Re: order (${client}, multipart)`, text);
      expect(t.message).toBe(message);
      for (const q of quoted) {
        expect(t.quoted).toContain(q);
        expect(t.message).not.toContain(q);
      }
    },
  );

  it("keeps the plain part's own split where it has one, and a plain part the HTML marks no quote in", async () => {
    // Gmail's plain part keeps "On … wrote:" and "> " lines: read as it is.
    const gmail = CASES.find((c) => c.client === 'Gmail (Korean)')!;
    const plain = `네, 주문 번호는 4711입니다.\n\n김민지\n\n2026년 11월 23일 (월) 오전 11:00, Shop Support <help@shop.example>님이 작성:\n\n> Hello,\n>\n> ${QUESTION}\n>\n> Shop Support\n`;
    const t = await ticketOf(gmail.html, 'Re: order (Gmail, multipart)', plain);
    expect(t.message).toBe('네, 주문 번호는 4711입니다.\n\n김민지');
    expect(t.quoted).toContain(QUESTION);
    // The customer's own indented list is no quote in either part: every word stays.
    const html = `<div dir="ltr">Order 12345 has these items:<blockquote style="margin:0 0 0 40px;border:none;padding:0px"><div>2 kettles</div><div>1 lid</div></blockquote><div>Please send the lid.</div></div>`;
    const own = await ticketOf(
      html,
      'Missing lid (multipart)',
      'Order 12345 has these items:\n\n  2 kettles\n  1 lid\n\nPlease send the lid.',
    );
    expect(own.message).toBe('Order 12345 has these items:\n\n  2 kettles\n  1 lid\n\nPlease send the lid.');
  });
});
