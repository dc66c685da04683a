import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { createTicket } from '../test-support/server.js';
import type { ReceivedMail } from '../test-support/smtp.js';

// Issue 29 audited as its reviewer would: for each class the issue names, mails written the way the
// real clients write them (their attribution lines, header blocks, footers, charsets and MIME shapes,
// as in talon's, email_reply_parser's and zammad's fixture mails and the clients' own output; the
// words, names and dates are ours), each sent over SMTP to the built-in receiver, and what the ticket
// shows compared: the subject, the sender, the text without quotes, the quoted part kept aside, the
// files by name and size, the original .eml. Cases marked `fixed` failed before the change beside it.

const Q = 'Could you tell us your order number?';
const enc = (text: string, charset: string) => iconv.encode(text, charset);
const b64 = (b: Buffer) => b.toString('base64');

/** A mail byte for byte: header lines and body lines joined with CRLF; strings as UTF-8. */
const raw = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p.replace(/\r?\n/g, '\r\n'), 'utf8') : p)));

const plain = (body: string, from = 'Anna <anna@example.com>') =>
  raw(
    `From: ${from}\nTo: ${SUPPORT}\nSubject: Re: order\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${body}\n`,
  );

interface Case {
  name: string;
  mail: Buffer;
  /** The ticket's message, exactly. */
  message?: string;
  /** Snippets the quoted part holds (and the message does not). */
  quoted?: string[];
  subject?: string;
  /** The ticket's name (when given) and address. */
  sender?: { name?: string; email: string };
  /** Files by name and size, the original .eml left out. */
  files?: [string, number][];
  /** The mail is refused into mail-in/failed/ with a reason holding this. */
  failed?: string;
}

// What goes wrong: an answer written below the quote, interleaved answers.
const BELOW: Case[] = [
  {
    name: 'Gmail, Italian attribution wrapped at 78 columns',
    mail: plain(
      "Buongiorno,\nil numero d'ordine è 4711.\n\nIl giorno lun 23 nov 2026 alle ore 11:00 Shop Support <\nhelp@shop.example> ha scritto:\n\n> Potrebbe indicarci il numero d'ordine?\n>\n> Shop Support\n",
    ),
    message: "Buongiorno,\nil numero d'ordine è 4711.",
    quoted: ['ha scritto:', "Potrebbe indicarci il numero d'ordine?"],
  },
  {
    name: 'Gmail, answer below the quote',
    mail: plain(
      `Hi,\n\nOn Mon, Nov 23, 2026 at 11:00 AM Shop Support <help@shop.example>\nwrote:\n\n> ${Q}\n>\n\nMy answer is here: 4711.\n`,
    ),
    message: 'Hi,\n\nMy answer is here: 4711.',
    quoted: [Q],
  },
  {
    // fixed: iOS and Apple Mail put "On … wrote:" inside the quote; the block stayed in the message.
    name: 'iOS Mail, bottom-posted (attribution inside the quote)',
    mail: plain(
      `> On 23 Nov 2026, at 11:00, Shop Support <help@shop.example> wrote:\n> \n> ${Q}\n\nIt is 4711.\n\nAnna\n`,
    ),
    message: 'It is 4711.\n\nAnna',
    quoted: ['wrote:', Q],
  },
  {
    name: 'Thunderbird, interleaved answers keep their questions',
    mail: plain('On 23.11.26 11:00, Shop Support wrote:\n> Which order?\n4711\n\n> Which colour?\nBlue\n'),
    message: 'On 23.11.26 11:00, Shop Support wrote:\n> Which order?\n4711\n\n> Which colour?\nBlue',
  },
  {
    name: 'Yandex, Russian, answer below the quote and a signature',
    mail: plain(
      '23.11.2026, 11:00, "Shop Support" <help@shop.example>:\n> Уточните номер заказа.\n\nНомер заказа 4711.\n\n-- \nАда\n',
    ),
    message: 'Номер заказа 4711.',
    quoted: ['Уточните номер заказа.', 'Ада'],
  },
];

// Signatures: cut on a delimiter or a client's footer line only.
const SIGNATURES: Case[] = [
  {
    name: 'P.S. after the sign-off',
    mail: plain(
      'Hi,\n\nthe parcel did not arrive.\n\nBest regards,\nAnna\n\nP.S. the parcel number is 00340434161094042557\n',
    ),
    message:
      'Hi,\n\nthe parcel did not arrive.\n\nBest regards,\nAnna\n\nP.S. the parcel number is 00340434161094042557',
  },
  {
    name: 'German PS after "Viele Grüße"',
    mail: plain('Hallo,\n\ndas Paket kam nicht an.\n\nViele Grüße\nAnna\n\nPS: Die Sendungsnummer ist 4711\n'),
    message: 'Hallo,\n\ndas Paket kam nicht an.\n\nViele Grüße\nAnna\n\nPS: Die Sendungsnummer ist 4711',
  },
  {
    // fixed: a whole line "Sent from my <two words>." was taken for a phone's footer.
    name: 'a sentence starting "Sent from my …" that names no device',
    mail: plain('Hello,\n\nthe invoice never reaches me. It is\nSent from my office account.\n'),
    message: 'Hello,\n\nthe invoice never reaches me. It is\nSent from my office account.',
  },
  {
    name: '"Sent from my iPhone" with more text after it',
    mail: plain(
      'Hello,\n\nthe parcel is missing.\n\nSent from my iPhone\n\nAnd one more thing: the invoice is wrong.\n',
    ),
    message: 'Hello,\n\nthe parcel is missing.\n\nAnd one more thing: the invoice is wrong.',
    quoted: ['Sent from my iPhone'],
  },
  {
    // fixed: the Japanese iPhone's footer stayed in the message.
    name: 'iPhone in Japanese: "iPhoneから送信" above the quote',
    mail: plain(
      '注文番号は4711です。\n\niPhoneから送信\n\n> 2026/11/23 11:00、Shop Support <help@shop.example>のメール:\n> \n> ご注文番号を教えてください。\n',
    ),
    message: '注文番号は4711です。',
    quoted: ['iPhoneから送信', 'ご注文番号を教えてください。'],
  },
  {
    // fixed: Samsung's German footer stayed in the message.
    name: 'Samsung Email in German, its footer and "Ursprüngliche Nachricht"',
    mail: plain(
      'Nummer 4711.\n\n\n\nGesendet von meinem Samsung Galaxy Smartphone.\n\n\n-------- Ursprüngliche Nachricht --------\nVon: Shop Support <help@shop.example> \nDatum: 23.11.26  11:00  (GMT+01:00) \nAn: anna@example.de \nBetreff: Re: Bestellung \n\nBitte nennen Sie uns Ihre Bestellnummer.\n',
    ),
    message: 'Nummer 4711.',
    quoted: ['Gesendet von meinem Samsung Galaxy Smartphone.', 'Bitte nennen Sie uns Ihre Bestellnummer.'],
  },
  {
    // fixed: Proton Mail's footer stayed in the message.
    name: 'Proton Mail, its footer above the quote',
    mail: plain(
      `It is 4711.\n\nSent with Proton Mail secure email.\n\nOn Monday, November 23rd, 2026 at 11:00 AM, Shop Support <help@shop.example> wrote:\n\n> ${Q}\n`,
    ),
    message: 'It is 4711.',
    quoted: ['Sent with Proton Mail secure email.', Q],
  },
  {
    name: 'Outlook for iOS, its footer and the underscore rule',
    mail: plain(
      `It is 4711.\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n________________________________\nFrom: Shop Support <help@shop.example>\nSent: Monday, November 23, 2026 11:00:00 AM\nTo: Anna <anna@example.com>\nSubject: Re: Order\n\n${Q}\n`,
    ),
    message: 'It is 4711.',
    quoted: ['Get Outlook for iOS', Q],
  },
];

// Quote headers in other languages and shapes (plain parts as each client writes them).
const header = (name: string, reply: string, quote: string, ask: string): Case => ({
  name,
  mail: plain(`${reply}\n\n${quote}\n`),
  message: reply,
  quoted: [ask],
});
const HEADERS: Case[] = [
  header(
    'Gmail, Russian (no verb)',
    'Номер 4711.',
    'пн, 23 нояб. 2026 г. в 11:00, Shop Support <help@shop.example>:\n\n> Уточните номер заказа.',
    'Уточните номер заказа.',
  ),
  header(
    'Mail.ru, Russian',
    'Номер заказа 4711.',
    'Понедельник, 23 ноября 2026, 11:00 +03:00 от Shop Support <help@shop.example>:\n\n>Уточните номер заказа.',
    'Уточните номер заказа.',
  ),
  header(
    'Thunderbird, Russian',
    'Номер 4711.',
    '23.11.2026 11:00, Shop Support пишет:\n> Уточните номер заказа.',
    'Уточните номер заказа.',
  ),
  header(
    'Outlook, Italian',
    'Il numero è 4711.',
    "Da: Shop Support <help@shop.example>\nInviato: lunedì 23 novembre 2026 11:00\nA: Marco Rossi <marco@example.it>\nOggetto: Re: Ordine\n\nPotrebbe indicarci il numero d'ordine?",
    "Potrebbe indicarci il numero d'ordine?",
  ),
  header(
    'Gmail, Dutch',
    'Het nummer is 4711.',
    'Op ma 23 nov 2026 om 11:00 schreef Shop Support <help@shop.example>:\n\n> Wat is uw bestelnummer?',
    'Wat is uw bestelnummer?',
  ),
  header(
    'Outlook, Dutch',
    'Het nummer is 4711.',
    'Van: Shop Support <help@shop.example>\nVerzonden: maandag 23 november 2026 11:00\nAan: Jan <jan@example.nl>\nOnderwerp: RE: Bestelling\n\nWat is uw bestelnummer?',
    'Wat is uw bestelnummer?',
  ),
  header(
    'Gmail, Polish',
    'Numer to 4711.',
    'pon., 23 lis 2026 o 11:00 Shop Support <help@shop.example> napisał(a):\n\n> Prosimy o numer zamówienia.',
    'Prosimy o numer zamówienia.',
  ),
  header(
    'Outlook, Polish',
    'Numer to 4711.',
    'Od: Shop Support <help@shop.example>\nWysłane: poniedziałek, 23 listopada 2026 11:00\nDo: Jan <jan@example.pl>\nTemat: RE: Zamówienie\n\nProsimy o numer zamówienia.',
    'Prosimy o numer zamówienia.',
  ),
  header(
    'Gmail, Spanish (address in parentheses, wrapped)',
    'El número es 4711.',
    'El lun, 23 nov 2026 a las 11:00, Shop Support (<help@shop.example>)\nescribió:\n\n> ¿Cuál es su número de pedido?',
    '¿Cuál es su número de pedido?',
  ),
  header(
    'Outlook, Spanish',
    'El número es 4711.',
    'De: Shop Support <help@shop.example>\nEnviado: lunes, 23 de noviembre de 2026 11:00\nPara: Ana <ana@example.es>\nAsunto: RE: Pedido\n\n¿Cuál es su número de pedido?',
    '¿Cuál es su número de pedido?',
  ),
  header(
    'Gmail, Portuguese',
    'O número é 4711.',
    'Em seg., 23 de nov. de 2026 às 11:00, Shop Support <help@shop.example>\nescreveu:\n\n> Qual é o número do pedido?',
    'Qual é o número do pedido?',
  ),
  header(
    'Outlook, Brazilian Portuguese',
    'O número é 4711.',
    'De: Shop Support <help@shop.example>\nEnviada em: segunda-feira, 23 de novembro de 2026 11:00\nPara: Ana <ana@example.com.br>\nAssunto: RE: Pedido\n\nQual é o número do pedido?',
    'Qual é o número do pedido?',
  ),
  header(
    'Gmail, Japanese',
    '注文番号は4711です。',
    '2026年11月23日(月) 11:00 Shop Support <help@shop.example>:\n\n> ご注文番号を教えてください。',
    'ご注文番号を教えてください。',
  ),
  header(
    'Outlook, Japanese',
    '注文番号は4711です。',
    '差出人: Shop Support <help@shop.example>\n送信日時: 2026年11月23日 11:00\n宛先: 山田 <yamada@example.jp>\n件名: RE: ご注文\n\nご注文番号を教えてください。',
    'ご注文番号を教えてください。',
  ),
  header(
    'Gmail, Chinese',
    '订单号是4711。',
    'Shop Support <help@shop.example> 于2026年11月23日周一 11:00写道：\n\n> 请告诉我们您的订单号。',
    '请告诉我们您的订单号。',
  ),
  header(
    'QQ Mail',
    '订单号是4711。',
    '------------------\u00a0原始邮件\u00a0------------------\n发件人: "Shop Support"<help@shop.example>;\n发送时间: 2026年11月23日(星期一) 上午11:00\n收件人: "李"<li@qq.com>;\n主题: Re: 订单\n\n请告诉我们您的订单号。',
    '请告诉我们您的订单号。',
  ),
  header(
    '163 Mail',
    '订单号是4711。',
    '在 2026-11-23 11:00:00，"Shop Support" <help@shop.example> 写道：\n>请告诉我们您的订单号。',
    '请告诉我们您的订单号。',
  ),
  header(
    'Outlook, German, bold fields',
    'Die Nummer ist 4711.',
    '*Von:* Shop Support <help@shop.example>\n*Gesendet:* Montag, 23. November 2026 11:00\n*An:* Anna <anna@example.de>\n*Betreff:* AW: Bestellung\n\nBitte nennen Sie uns Ihre Bestellnummer.',
    'Bitte nennen Sie uns Ihre Bestellnummer.',
  ),
  header(
    'Outlook, French ("De :")',
    'Le numéro est 4711.',
    'De : Shop Support <help@shop.example>\nEnvoyé : lundi 23 novembre 2026 11:00\nÀ : Claire <claire@example.fr>\nObjet : RE: Commande\n\nPourriez-vous nous donner le numéro ?',
    'Pourriez-vous nous donner le numéro ?',
  ),
  header(
    'Gmail, French, wrapped',
    'Le numéro est 4711.',
    'Le lun. 23 nov. 2026 à 11:00, Shop Support <help@shop.example> a\nécrit :\n\n> Pourriez-vous nous donner le numéro ?',
    'Pourriez-vous nous donner le numéro ?',
  ),
  header(
    'Outlook for Mac, German',
    'Die Nummer ist 4711.',
    'Von: Shop Support <help@shop.example>\nDatum: Montag, 23. November 2026 um 11:00\nAn: Anna <anna@example.de>\nBetreff: Re: Bestellung\n\nBitte nennen Sie uns Ihre Bestellnummer.',
    'Bitte nennen Sie uns Ihre Bestellnummer.',
  ),
  header(
    'Yahoo, indented attribution',
    'The number is 4711.',
    `    On Monday, November 23, 2026 at 11:00:00 AM GMT+1, Shop Support <help@shop.example> wrote:  \n \n ${Q}`,
    Q,
  ),
  header(
    'Windows Mail',
    'It is 4711.',
    `Sent from Mail for Windows\n\nFrom: Shop Support\nSent: Monday, November 23, 2026 11:00\nTo: Anna\nSubject: Re: Order\n\n${Q}`,
    Q,
  ),
  header(
    'Outlook, Russian',
    'Номер 4711.\n\nС уважением,\nИван',
    'От: Shop Support <help@shop.example>\nОтправлено: 23 ноября 2026 г. 11:00\nКому: Иван <ivan@example.ru>\nТема: RE: Заказ\n\nУточните номер заказа.',
    'Уточните номер заказа.',
  ),
  header(
    'Thunderbird, Dutch',
    'Het nummer is 4711.',
    'Op 23-11-2026 om 11:00 schreef Shop Support:\n> Wat is uw bestelnummer?',
    'Wat is uw bestelnummer?',
  ),
  header(
    'Gmail, German, wrapped',
    'Nummer 4711.',
    'Am Mo., 23. Nov. 2026 um 11:00 Uhr schrieb Shop Support <\nhelp@shop.example>:\n\n> Bitte nennen Sie uns Ihre Bestellnummer.',
    'Bitte nennen Sie uns Ihre Bestellnummer.',
  ),
  header(
    'Lotus Notes, English ("wrote on …:")',
    'It is 4711.\n\nAnna',
    `Shop Support <help@shop.example> wrote on 11/23/2026 11:00:00 AM:\n\n> ${Q}`,
    Q,
  ),
  header(
    'Lotus Notes, German, the header block quoted',
    'Nummer 4711.',
    '"Shop Support" <help@shop.example> schrieb am 23.11.2026 11:00:00:\n\n> Von: "Shop Support" <help@shop.example>\n> An: anna@example.de\n> Datum: 23.11.2026 11:00\n> Betreff: Bestellung\n>\n> Bitte nennen Sie uns Ihre Bestellnummer.',
    'Bitte nennen Sie uns Ihre Bestellnummer.',
  ),
  header(
    'Zimbra',
    'It is 4711.',
    `----- Original Message -----\nFrom: "Shop Support" <help@shop.example>\nTo: "Anna" <anna@example.com>\nSent: Monday, November 23, 2026 11:00:00 AM\nSubject: Re: Order\n\n${Q}`,
    Q,
  ),
  // fixed: Seznam's "Původní e-mail" rule stayed in the message.
  header(
    'Seznam, Czech',
    'Číslo je 4711.',
    '---------- Původní e-mail ----------\nOd: Shop Support <help@shop.example>\nKomu: anna@example.cz\nDatum: 23. 11. 2026 11:00:00\nPředmět: Re: Objednávka\n\nProsíme o číslo objednávky.',
    'Prosíme o číslo objednávky.',
  ),
];

// HTML replies and multipart/alternative ones.
const alternative = (text: string, html: string) =>
  raw(
    `From: Anna <anna@example.com>\nTo: ${SUPPORT}\nSubject: Re: order\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="alt"\n\n--alt\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${text}\n--alt\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${html}\n--alt--\n`,
  );
const htmlOnly = (html: string) =>
  raw(
    `From: Anna <anna@example.com>\nTo: ${SUPPORT}\nSubject: Re: order\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${html}\n`,
  );
const HTML: Case[] = [
  {
    name: 'Outlook on the web, Italian, multipart (plain part without ">" marks)',
    mail: alternative(
      `Il numero è 4711.\n\nCordiali saluti\nMarco\n________________________________\nDa: Shop Support <help@shop.example>\nInviato: lunedì 23 novembre 2026 11:00\nA: Marco <marco@example.it>\nOggetto: Re: Ordine\n\n${Q}\n`,
      `<html><body><div class="elementToProof">Il numero è 4711.</div><div class="elementToProof"><br></div><div class="elementToProof">Cordiali saluti<br>Marco</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" color="#000000" style="font-size:11pt"><b>Da:</b> Shop Support &lt;help@shop.example&gt;<br><b>Inviato:</b> lunedì 23 novembre 2026 11:00<br><b>A:</b> Marco &lt;marco@example.it&gt;<br><b>Oggetto:</b> Re: Ordine</font><div>&nbsp;</div></div><div>${Q}</div></body></html>`,
    ),
    message: 'Il numero è 4711.\n\nCordiali saluti\nMarco',
    quoted: ['Inviato:', Q],
  },
  {
    name: 'Outlook desktop, German, multipart (bordered From box)',
    mail: alternative(
      'Die Nummer ist 4711.\n\nViele Grüße\nAnna\n\nVon: Shop Support <help@shop.example>\nGesendet: Montag, 23. November 2026 11:00\nAn: Anna <anna@example.de>\nBetreff: AW: Bestellung\n\nBitte nennen Sie uns Ihre Bestellnummer.\n',
      `<html><body lang=DE><div class=WordSection1><p class=MsoNormal>Die Nummer ist 4711.<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>Viele Grüße<o:p></o:p></p><p class=MsoNormal>Anna<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal><b>Von:</b> Shop Support &lt;help@shop.example&gt; <br><b>Gesendet:</b> Montag, 23. November 2026 11:00<br><b>An:</b> Anna &lt;anna@example.de&gt;<br><b>Betreff:</b> AW: Bestellung<o:p></o:p></p></div><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>Bitte nennen Sie uns Ihre Bestellnummer.<o:p></o:p></p></div></body></html>`,
    ),
    message: 'Die Nummer ist 4711.\n\nViele Grüße\nAnna',
    quoted: ['Gesendet:', 'Bitte nennen Sie uns Ihre Bestellnummer.'],
  },
  {
    name: 'Gmail, multipart, answer below gmail_quote',
    mail: alternative(
      `Hi,\n\nOn Mon, Nov 23, 2026 at 11:00 AM Shop Support <help@shop.example>\nwrote:\n\n> ${Q}\n>\n\nIt is 4711.\n`,
      `<div dir="ltr">Hi,</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Nov 23, 2026 at 11:00 AM Shop Support &lt;<a href="mailto:help@shop.example">help@shop.example</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">${Q}<br></blockquote><div><br></div><div>It is 4711.</div></div>`,
    ),
    message: 'Hi,\n\nIt is 4711.',
    quoted: [Q],
  },
  {
    name: 'Yahoo, multipart (ydp-prefixed yahoo_quoted)',
    mail: alternative(
      `It is 4711.\n\n    On Monday, November 23, 2026 at 11:00:00 AM GMT+1, Shop Support <help@shop.example> wrote:  \n \n ${Q}\n`,
      `<html><head></head><body><div class="ydp1 yahoo-style-wrap"><div dir="ltr" data-setdir="false">It is 4711.</div><div><br></div></div><div id="ydp2yahoo_quoted_1" class="ydp2yahoo_quoted"><div><div>On Monday, November 23, 2026 at 11:00:00 AM GMT+1, Shop Support &lt;help@shop.example&gt; wrote:</div><div><br></div><div><div dir="ltr">${Q}</div></div></div></div></body></html>`,
    ),
    message: 'It is 4711.',
    quoted: [Q],
  },
  {
    name: 'QQ Mail, HTML only',
    mail: htmlOnly(
      '<div>订单号是4711。</div><div><br></div><div><div style="font-size: 12px;font-family: Arial Narrow;padding:2px 0 2px 0;">------------------&nbsp;原始邮件&nbsp;------------------</div><div style="font-size: 12px;background:#efefef;padding:8px;"><div><b>发件人:</b>&nbsp;"Shop Support"&lt;help@shop.example&gt;;</div><div><b>发送时间:</b>&nbsp;2026年11月23日(星期一) 上午11:00</div><div><b>收件人:</b>&nbsp;"李"&lt;li@qq.com&gt;;</div><div><b>主题:</b>&nbsp;Re: 订单</div></div><div><br></div>请告诉我们您的订单号。</div>',
    ),
    message: '订单号是4711。',
    quoted: ['请告诉我们您的订单号。'],
  },
  {
    name: '163 Mail, HTML only (isReplyContent blockquote)',
    mail: htmlOnly(
      '<div style="line-height:1.7;color:#000000;font-size:14px;font-family:Arial"><div>订单号是4711。</div><br><br><div id="divNeteaseMailCard"></div><br><pre><br>在 2026-11-23 11:00:00，"Shop Support" &lt;help@shop.example&gt; 写道：<br><blockquote id="isReplyContent" style="PADDING-LEFT: 1ex; MARGIN: 0px 0px 0px 0.8ex; BORDER-LEFT: #ccc 1px solid">请告诉我们您的订单号。</blockquote></pre></div>',
    ),
    message: '订单号是4711。',
    quoted: ['请告诉我们您的订单号。'],
  },
  {
    name: 'Apple Mail, HTML only, bottom-posted',
    mail: htmlOnly(
      `<html><body style="word-wrap: break-word;"><div><blockquote type="cite"><div>On 23 Nov 2026, at 11:00, Shop Support &lt;help@shop.example&gt; wrote:</div><br class="Apple-interchange-newline"><div>${Q}</div></blockquote></div><br><div>It is 4711.</div><div><br></div><div>Anna</div></body></html>`,
    ),
    message: 'It is 4711.\n\nAnna',
    quoted: [Q],
  },
  {
    name: 'HTML spacing: cells, paragraphs, inline tags across a line break, list items',
    mail: htmlOnly(
      '<table><tr><td>Order</td><td>4711</td></tr></table><p>Hello</p><p>World</p><span>Präsenz</span>\n<span>posten</span><div>line1<br>line2</div><ul><li>one</li><li>two</li></ul>',
    ),
    message: 'Order 4711\n\nHello\n\nWorld\n\nPräsenz posten\nline1\nline2\n * one\n * two',
  },
];

// Charsets: labels missing or wrong, names in CJK charsets; never U+FFFD where the bytes decode.
const FILE_PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(100, 7),
]);
const CHARSETS: Case[] = [
  {
    // fixed: detected as Big5, then EUC-KR ("壽衾扂腔隆等腔恀枙"): every guess was a CJK charset at equal confidence.
    name: 'undeclared 8-bit GB2312 subject over a UTF-8 body (Foxmail)',
    mail: raw(
      'From: Li <li@example.cn>\nTo: help@shop.example\nSubject: ',
      enc('关于我的订单的问题', 'gb2312'),
      '\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n',
      b64(Buffer.from('你好，我的订单还没有到。')),
      '\n',
    ),
    subject: '关于我的订单的问题',
    message: '你好，我的订单还没有到。',
  },
  {
    // fixed: the body was relabelled, the subject's and name's RFC 2047 words were not (mojibake).
    name: 'Shift_JIS labelled ISO-2022-JP in the body, the subject and the name (a Japanese phone)',
    mail: raw(
      'From: =?ISO-2022-JP?B?',
      b64(enc('山田太郎', 'shift_jis')),
      '?= <yamada@docomo.example.jp>\nTo: help@shop.example\nSubject: =?ISO-2022-JP?B?',
      b64(enc('商品が届きません', 'shift_jis')),
      '?=\nMIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-2022-JP\nContent-Transfer-Encoding: 8bit\n\n',
      enc('注文した商品がまだ届いていません。確認してください。', 'shift_jis'),
      '\n',
    ),
    subject: '商品が届きません',
    sender: { name: '山田太郎', email: 'yamada@docomo.example.jp' },
    message: '注文した商品がまだ届いていません。確認してください。',
  },
  {
    name: 'windows-1252 bytes in a part declared us-ascii',
    mail: raw(
      'From: Joerg <joerg@example.de>\nTo: help@shop.example\nSubject: Lieferung\nMIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: 8bit\n\n',
      enc('Meine Bestellung ist nicht angekommen. Bitte prüfen Sie das.\r\nMit freundlichen Grüßen', 'windows-1252'),
      '\n',
    ),
    message: 'Meine Bestellung ist nicht angekommen. Bitte prüfen Sie das.\nMit freundlichen Grüßen',
  },
  {
    // fixed: every byte fits ISO-8859-1, so the label was trusted: "GrÃ¼ÃŸe aus KÃ¶ln".
    name: 'UTF-8 bytes under an ISO-8859-1 label (a web form)',
    mail: raw(
      'From: Jan <jan@example.de>\nTo: help@shop.example\nSubject: Bestellung\nMIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\nGrüße aus Köln, die Bestellung fehlt.\n',
    ),
    message: 'Grüße aus Köln, die Bestellung fehlt.',
  },
  {
    // fixed: the same under windows-1252, in an HTML-only mail whose <meta> says utf-8.
    name: 'UTF-8 HTML under a windows-1252 label',
    mail: raw(
      'From: Zofia <zofia@example.pl>\nTo: help@shop.example\nSubject: Zamowienie\nMIME-Version: 1.0\nContent-Type: text/html; charset=windows-1252\nContent-Transfer-Encoding: 8bit\n\n<html><head><meta charset="utf-8"></head><body><p>Zamówienie nie dotarło — proszę sprawdzić.</p></body></html>\n',
    ),
    message: 'Zamówienie nie dotarło — proszę sprawdzić.',
  },
  {
    name: 'windows-1251 bytes in a part declared us-ascii',
    mail: raw(
      'From: Ivan <ivan@example.ru>\nTo: help@shop.example\nSubject: Order\nMIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: 8bit\n\n',
      enc('Здравствуйте! Мой заказ до сих пор не пришёл.', 'windows-1251'),
      '\n',
    ),
    message: 'Здравствуйте! Мой заказ до сих пор не пришёл.',
  },
  {
    // fixed: "cp936" (Outlook's name for GBK) is unknown to the WHATWG decoder: re-detected as EUC-JP ("厘議匡汽").
    name: 'a GBK body labelled cp936',
    mail: raw(
      'From: Li <li@example.cn>\nTo: help@shop.example\nSubject: =?cp936?B?',
      b64(enc('我的订单', 'gbk')),
      '?=\nMIME-Version: 1.0\nContent-Type: text/plain; charset=cp936\nContent-Transfer-Encoding: base64\n\n',
      b64(enc('我的订单还没有到。', 'gbk')),
      '\n',
    ),
    subject: '我的订单',
    message: '我的订单还没有到。',
  },
  {
    name: 'Korean labelled ks_c_5601-1987 (Outlook)',
    mail: raw(
      'From: Kim <kim@example.kr>\nTo: help@shop.example\nSubject: =?ks_c_5601-1987?B?',
      b64(enc('주문 문의', 'euc-kr')),
      '?=\nMIME-Version: 1.0\nContent-Type: text/plain; charset=ks_c_5601-1987\nContent-Transfer-Encoding: base64\n\n',
      b64(enc('주문한 상품이 아직 도착하지 않았습니다.', 'euc-kr')),
      '\n',
    ),
    subject: '주문 문의',
    message: '주문한 상품이 아직 도착하지 않았습니다.',
  },
  {
    name: 'attachment names in GB2312 (RFC 2047) and Big5 (RFC 2231 continuations)',
    mail: raw(
      `From: Lin <lin@example.tw>\nTo: ${SUPPORT}\nSubject: invoices\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="m"\n\n--m\nContent-Type: text/plain; charset=utf-8\n\ninvoices attached\n--m\nContent-Type: application/pdf; name="=?GB2312?B?${b64(enc('发票', 'gb2312'))}?=.pdf"\nContent-Disposition: attachment; filename="=?GB2312?B?${b64(enc('发票.pdf', 'gb2312'))}?="\nContent-Transfer-Encoding: base64\n\n${b64(FILE_PDF)}\n--m\nContent-Type: application/pdf\nContent-Disposition: attachment;\n filename*0*=big5''${[...enc('發票', 'big5')].map((x) => `%${x.toString(16).toUpperCase()}`).join('')};\n filename*1*=-2.pdf\nContent-Transfer-Encoding: base64\n\n${b64(FILE_PDF)}\n--m--\n`,
    ),
    files: [
      ['发票.pdf', FILE_PDF.length],
      ['發票-2.pdf', FILE_PDF.length],
    ],
  },
];

// Files: unnamed parts, x-uuencode, cid: images, Apple Mail's text around an inline image.
const uuencode = (b: Buffer) => {
  let out = '';
  for (let i = 0; i < b.length; i += 45) {
    const chunk = b.subarray(i, i + 45);
    let line = String.fromCharCode(32 + chunk.length);
    for (let j = 0; j < chunk.length; j += 3) {
      const n = (chunk[j]! << 16) | ((chunk[j + 1] ?? 0) << 8) | (chunk[j + 2] ?? 0);
      for (const shift of [18, 12, 6, 0]) {
        const v = (n >> shift) & 63;
        line += v === 0 ? '`' : String.fromCharCode(32 + v);
      }
    }
    out += `${line}\n`;
  }
  return `${out}\`\nend\n`;
};
const FILES: Case[] = [
  {
    name: 'Apple Mail: text, an inline photo, more text (the text after the photo kept)',
    mail: raw(
      `From: Anna <anna@example.com>\nTo: ${SUPPORT}\nSubject: broken lid\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="Apple-Mail=_1"\n\n--Apple-Mail=_1\nContent-Transfer-Encoding: 7bit\nContent-Type: text/plain;\n\tcharset=us-ascii\n\nHere is the photo of the lid:\n\n--Apple-Mail=_1\nContent-Disposition: inline;\n\tfilename=IMG_0042.jpeg\nContent-Type: image/jpeg;\n\tx-unix-mode=0644;\n\tname="IMG_0042.jpeg"\nContent-Transfer-Encoding: base64\n\n${b64(JPEG)}\n--Apple-Mail=_1\nContent-Transfer-Encoding: 7bit\nContent-Type: text/plain;\n\tcharset=us-ascii\n\n\nAnd the crack is on the left side.\n\nAnna\n--Apple-Mail=_1--\n`,
    ),
    message: 'Here is the photo of the lid:\n\nAnd the crack is on the left side.\n\nAnna',
    files: [['IMG_0042.jpeg', JPEG.length]],
  },
  {
    name: 'unnamed octet-stream PDF, unnamed image/jpg, x-uuencode, a Thunderbird RFC 2231 name, an Outlook split RFC 2047 name',
    mail: raw(
      `From: Anna <anna@example.com>\nTo: ${SUPPORT}\nSubject: files\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="x"\n\n--x\nContent-Type: text/plain; charset=utf-8\n\nfiles attached\n--x\nContent-Type: application/octet-stream\nContent-Disposition: attachment\nContent-Transfer-Encoding: base64\n\n${b64(FILE_PDF)}\n--x\nContent-Type: image/jpg\nContent-Transfer-Encoding: base64\n\n${b64(JPEG)}\n--x\nContent-Type: application/pdf\nContent-Disposition: attachment;\n filename*0*=UTF-8''%D0%A1%D1%87%D0%B5%D1%82%20%E2%84%96%204711%20%D0%BE%D1%82%20;\n filename*1*=23.11.2026.pdf\nContent-Transfer-Encoding: base64\n\n${b64(FILE_PDF)}\n--x\nContent-Type: application/pdf; name="=?utf-8?B?RmFjdHVyYSBuwrogNDcxMSBkZSBub3ZpZW1icmUgZGUgMjAyNi5w?=\n =?utf-8?B?ZGY=?="\nContent-Disposition: attachment; filename="=?utf-8?B?RmFjdHVyYSBuwrogNDcxMSBkZSBub3ZpZW1icmUgZGUgMjAyNi5w?=\n =?utf-8?B?ZGY=?="\nContent-Transfer-Encoding: base64\n\n${b64(FILE_PDF)}\n--x\nContent-Type: image/jpeg\nContent-Transfer-Encoding: x-uuencode\nContent-Disposition: attachment; filename="lid.jpg"\n\nbegin 644 lid.jpg\n${uuencode(JPEG)}--x--\n`,
    ),
    message: 'files attached',
    files: [
      ['attachment-1.pdf', FILE_PDF.length],
      ['attachment-2.jpg', JPEG.length],
      ['Счет № 4711 от 23.11.2026.pdf', FILE_PDF.length],
      ['Factura nº 4711 de noviembre de 2026.pdf', FILE_PDF.length],
      ['lid.jpg', JPEG.length],
    ],
  },
  {
    name: 'Outlook: image001.jpg shown by cid: in multipart/related',
    mail: raw(
      `From: Anna <anna@example.com>\nTo: ${SUPPORT}\nSubject: cid\nMIME-Version: 1.0\nContent-Type: multipart/related; boundary="r"; type="multipart/alternative"\n\n--r\nContent-Type: multipart/alternative; boundary="a"\n\n--a\nContent-Type: text/plain; charset="us-ascii"\n\nSee the picture.\n--a\nContent-Type: text/html; charset="us-ascii"\n\n<p>See the picture.</p><p><img width=100 height=50 id="Picture_x0020_1" src="cid:image001.jpg@01DB3D2A.5E6F7A80"></p>\n--a--\n--r\nContent-Type: image/jpeg; name="image001.jpg"\nContent-Description: image001.jpg\nContent-Disposition: inline; filename="image001.jpg"; size=${JPEG.length};\nContent-ID: <image001.jpg@01DB3D2A.5E6F7A80>\nContent-Transfer-Encoding: base64\n\n${b64(JPEG)}\n--r--\n`,
    ),
    message: 'See the picture.',
    files: [['image001.jpg', JPEG.length]],
  },
];

// Senders, by RFC 5322.
const from = (header: string, extra = '') =>
  raw(`From: ${header}\n${extra}To: ${SUPPORT}\nSubject: hello\nContent-Type: text/plain; charset=utf-8\n\nhello\n`);
const SENDERS: Case[] = [
  {
    name: 'a quoted name with a comma',
    mail: from('"Müller, Anna" <anna@example.de>'),
    sender: { name: 'Müller, Anna', email: 'anna@example.de' },
  },
  {
    name: 'a name in a comment (Pine, old Unix mailers)',
    mail: from('anna@example.de (Anna Müller)'),
    sender: { name: 'Anna Müller', email: 'anna@example.de' },
  },
  {
    name: 'an RFC 2047 word inside quotes (Outlook)',
    mail: from('"=?UTF-8?B?0JDQvdC90LAg0JjQstCw0L3QvtCy0LA=?=" <anna@example.ru>'),
    sender: { name: 'Анна Иванова', email: 'anna@example.ru' },
  },
  {
    name: 'ISO-8859-2 Q-encoded name',
    mail: from('=?iso-8859-2?Q?Zofia_=A3uczak?= <zofia@example.pl>'),
    sender: { name: 'Zofia Łuczak', email: 'zofia@example.pl' },
  },
  // fixed: read byte by byte, "ã¼nal@example.de" and "Ãnal Ãelik".
  {
    name: 'RFC 6532: a UTF-8 name and address',
    mail: from('Ünal Çelik <ünal@example.de>'),
    sender: { name: 'Ünal Çelik', email: 'ünal@example.de' },
  },
  {
    // fixed: the quotes were dropped, and "anna smith@example.com" is no address at all.
    name: 'a quoted local part (RFC 5322 quoted-string)',
    mail: from('"anna smith"@example.com'),
    sender: { email: '"anna smith"@example.com' },
  },
  {
    name: 'two From mailboxes and a Sender',
    mail: from('Anna <anna@example.com>, Bob <bob@example.com>', 'Sender: Bob <bob@example.com>\n'),
    sender: { name: 'Bob', email: 'bob@example.com' },
  },
  {
    name: 'two From mailboxes, no Sender',
    mail: from('Anna <anna@example.com>, Bob <bob@example.com>'),
    failed: 'several mailboxes',
  },
  {
    name: 'a local part with spaces, unquoted',
    mail: from('"your secret past" <power quadrant system@example.com>'),
    failed: 'is not an address (RFC 5322)',
  },
  { name: 'a From without an address', mail: from('Anna Smith'), failed: 'is not an address (RFC 5322)' },
  { name: 'an empty group', mail: from('undisclosed-recipients:;'), failed: 'is not an address (RFC 5322)' },
];

const CLASSES: [string, Case[]][] = [
  ['answers below and between quotes', BELOW],
  ['signatures and footers', SIGNATURES],
  ['quote headers in other languages and shapes', HEADERS],
  ['HTML and multipart replies', HTML],
  ['charsets', CHARSETS],
  ['attachments', FILES],
  ['senders', SENDERS],
];

let server: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

describe.each(CLASSES)('issue 29 audit: %s', (_, cases) => {
  it.each(cases)('$name', async (c) => {
    const { s, port } = server;
    const outcome = await deliver(s, port, { raw: c.mail, from: 'bounce@example.net', to: [SUPPORT] });
    if (c.failed) {
      expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringContaining(c.failed) });
      return;
    }
    expect(outcome.kind).toBe('created');
    const t = (await s.call('GET', `/ticket?id=${(outcome as { ticket: string }).ticket}`)).body;
    if (c.message !== undefined) expect(t.message).toBe(c.message);
    for (const q of c.quoted ?? []) {
      expect(t.quoted).toContain(q);
      expect(t.message).not.toContain(q);
    }
    if (c.message !== undefined && !c.quoted) expect(t.quoted ?? '').toBe('');
    if (c.subject) expect(t.subject).toBe(c.subject);
    if (c.sender) expect({ name: t.name, email: t.email }).toMatchObject(c.sender);
    for (const field of [t.subject, t.name, t.message, t.quoted ?? '']) expect(field).not.toContain('\uFFFD');
    const files = t.attachments.map((a: { name: string; size: number }) => [a.name, a.size]);
    // The original mail always, downloadable byte for byte.
    const eml = t.attachments.find((a: { name: string }) => a.name === 'original-mail.eml');
    expect(eml).toBeDefined();
    const original = await fetch(`${s.base}/file?ticket_id=${t.id}&file_id=${eml.id}`, {
      headers: { authorization: `Bearer ${s.keys.sk}` },
    });
    expect(Buffer.from(await original.arrayBuffer()).equals(c.mail)).toBe(true);
    if (c.files) expect(files.filter(([n]: [string]) => n !== 'original-mail.eml')).toEqual(c.files);
  });
});

// Threading, and agents answering notifications by mail, with the shapes real clients give a reply.
const quoteLines = (text: string) =>
  text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');

describe('issue 29 audit: threading and agents answering by mail', () => {
  it('replies from a Japanese phone (no In-Reply-To), Outlook (In-Reply-To only) and Gmail (References only) thread; an agent answers from Outlook', async () => {
    const m = await startMailServer();
    try {
      const { s, smtp, port } = m;
      const ada = await signedInAgent(s, { name: 'Ada Agent', email: 'ada@staff.example' });
      const mail = await s.call('POST', '/admin?r=mail', {
        json: {
          from_name: 'Shop Support',
          from_address: SUPPORT,
          smtp: { host: '127.0.0.1', port: smtp.port },
          email_notify: {
            customer_on_create: true,
            customer_on_reply: true,
            agents_on_create: true,
            agent_emails: ['ada@staff.example'],
          },
          agent_reply_domains: ['staff.example'],
        },
      });
      expect(mail.status, mail.text).toBe(200);
      const t = await createTicket(s, { email: 'yamada@docomo.example.jp', name: 'Yamada', subject: 'Lid' });
      const mails = await smtp.waitFor(2);
      const toCustomer = mails.find((x: ReceivedMail) => x.to.includes('yamada@docomo.example.jp'))!;
      const toAda = mails.find((x: ReceivedMail) => x.to.includes('ada@staff.example'))!;
      const replies = async () => (await s.call('GET', `/ticket?id=${t.id}`)).body.replies;

      // A Japanese phone: Shift_JIS under an ISO-2022-JP label, no In-Reply-To or References, to the Reply-To.
      const phone = raw(
        `From: yamada@docomo.example.jp\nTo: ${toCustomer.replyTo}\nSubject: =?ISO-2022-JP?B?`,
        b64(enc('Re: 届きません', 'shift_jis')),
        '?=\nMIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-2022-JP\nContent-Transfer-Encoding: 8bit\n\n',
        enc(
          `届きました。ありがとうございます。\r\n\r\n${quoteLines(toCustomer.text).replace(/\n/g, '\r\n')}`,
          'shift_jis',
        ),
        '\r\n',
      );
      expect(
        await deliver(s, port, { raw: phone, from: 'yamada@docomo.example.jp', to: [toCustomer.replyTo] }),
      ).toMatchObject({
        kind: 'replied',
        ticket: t.id,
      });
      expect((await replies()).at(-1)).toMatchObject({ message: '届きました。ありがとうございます。' });

      // Outlook, German, to the support address with In-Reply-To only; its plain part has no ">" marks.
      const outlook = await deliver(s, port, {
        from: 'Yamada <yamada@docomo.example.jp>',
        to: SUPPORT,
        subject: `AW: ${toCustomer.subject}`,
        inReplyTo: toCustomer.messageId,
        text: `Danke, angekommen.\n\nVon: Shop Support <${SUPPORT}>\nGesendet: Montag, 23. November 2026 11:00\nAn: Yamada <yamada@docomo.example.jp>\nBetreff: ${toCustomer.subject}\n\n${toCustomer.text}\n`,
      });
      expect(outlook).toMatchObject({ kind: 'replied', ticket: t.id });
      expect((await replies()).at(-1)).toMatchObject({ message: 'Danke, angekommen.' });

      // Gmail with References only.
      const gmail = await deliver(s, port, {
        from: 'Yamada <yamada@docomo.example.jp>',
        to: SUPPORT,
        subject: `Re: ${toCustomer.subject}`,
        references: [toCustomer.messageId],
        text: `Thanks!\n\nOn Mon, Nov 23, 2026 at 11:00 AM Shop Support <${SUPPORT}> wrote:\n\n${quoteLines(toCustomer.text)}\n`,
      });
      expect(gmail).toMatchObject({ kind: 'replied', ticket: t.id });
      expect((await replies()).at(-1)).toMatchObject({ message: 'Thanks!' });

      // The agent answers from Outlook desktop (French labels, no ">" marks) to her own Reply-To.
      const agent = await deliver(s, port, {
        from: 'Ada Agent <ada@staff.example>',
        to: toAda.replyTo,
        subject: `RE: ${toAda.subject}`,
        inReplyTo: toAda.messageId,
        text: `Un nouveau couvercle part demain.\n\nAda\n\nDe : Shop Support <${SUPPORT}>\nEnvoyé : lundi 23 novembre 2026 11:00\nÀ : Ada Agent <ada@staff.example>\nObjet : ${toAda.subject}\n\n${toAda.text}\n`,
      });
      expect(agent).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: ada.agent.id });
      const last = (await replies()).at(-1);
      expect(last).toMatchObject({ message: 'Un nouveau couvercle part demain.\n\nAda', from_customer: false });
      expect(last.quoted).toContain('Envoyé :');
      // Threading stays whole: the four mails made four replies on the one ticket, no new ticket.
      expect(await replies()).toHaveLength(4);
      expect((await s.call('GET', '/list?limit=10')).body.total).toBe(1);
    } finally {
      await m.close();
    }
  });
});
