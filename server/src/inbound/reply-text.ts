import { REPLY_MARKER } from '../mail/threading.js';

/** A mail's text split in two: what the customer wrote now, and the quoted history and signature. */
export interface ReplyParts {
  text: string;
  /** What was taken out (quotes, the headers above them, a signature), for showing collapsed. */
  quoted: string;
}

// The verbs that end a quote header ("On Tue, … Anna <a@b.c> wrote:") in the languages clients
// write them: English, German, French, Polish, Dutch, the Scandinavian ones, Italian, Spanish,
// Portuguese, Russian, Ukrainian, Czech, Finnish, Hungarian, Turkish, Chinese and Japanese.
const WROTE =
  /(wrote|schrieb|a écrit|napisał\(a\)|napisał|napisała|napisal|pisze|schreef|geschreven|skrev|ha scritto|scrisse|escribió|escreveu|написал|написала|пишет|написав|napsal|napsala|kirjoitti|írta|yazdı|写道|寫道|書きました|のメッセージ)\s*[:：]?[\s-]*$/i;
// Where such a header starts when it shares its line with the reply ("reply--- On Wed, … wrote:").
const OPENER = /(^|[\s-])(On|Am|Le|Op|Den|På|El|Em|Il|W dniu|Dne|В|Kun|Il giorno)\s/;
// Also a weekday's short name before the date ("pe 20. lokakuuta", "tir. 18. apr.": Finnish, Norwegian).
const OPENER_AT_START =
  /^\s*(-*\s*(On|Am|Le|Op|Den|På|El|Em|Il|W dniu|Dnia|Dne|В|Kun|Il giorno)\s|\p{L}{1,4}\.?,?\s+\d|\d|在|于)/u;
// A header without a verb, or with the name after it: a date, a time and the sender's address at the
// end, then a colon (Yandex "30.09.2017, 18.30, "John" <j@x.y>:", Gmail "2017-11-24 16:32 GMT+01:00
// John <j@x.y>:", Mail.ru, Dutch "Op … 19:05 schreef John <j@x.y>:", German "Am … schrieb …").
const DATED_ADDRESS = /<\s*[^<>\s]+@[^<>\s]+\s*>\s*[:：]\s*$/;
const datedAddress = (s: string) =>
  DATED_ADDRESS.test(s) &&
  /\b\d{1,2}[:.]\d{2}\b/.test(s) &&
  /\b(19|20)\d{2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b/.test(s);
// The field names of the header block Outlook and others put above a quoted mail (also in bold:
// "*From:*"), in the same languages.
const FIELD =
  /^\s*\*?(From|Von|De|Da|Van|Fra|Från|Od|От|Від|Kimden|Lähettäjä|Feladó|差出人|发件人|發件人|寄件者|Remitente|Message du|Sent|Date|Gesendet|Datum|Envoyé le|Envoyé|Enviado|Inviato|Data|Verzonden|Sendt|Skickat|Wysłano|Отправлено|Дата|Gönderildi|Tarih|Lähetetty|Elküldve|送信日時|日付|发送时间|日期|Fecha|To|An|À|A|Para|Aan|Til|Till|Do|Кому|Kime|Vastaanottaja|Címzett|宛先|收件人|Cc|Copie à|Kopie|Subject|Betreff|Objet|Sujet|Oggetto|Asunto|Assunto|Onderwerp|Emne|Ämne|Temat|Тема|Konu|Aihe|Tárgy|件名|主题|主旨)\s*\*?\s*[:：]/i;
const FROM_FIELD =
  /^\s*\*?(From|Von|De|Da|Van|Fra|Från|Od|От|Від|Kimden|Lähettäjä|Feladó|差出人|发件人|寄件者)\s*\*?\s*[:：]/i;
const ORIGINAL =
  /^\s*-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Messaggio originale|Mensaje original|Mensagem original|Oorspronkelijk bericht|Originalmeddelande|Oprindelig meddelelse|Opprinnelig melding|Wiadomość oryginalna|Исходное сообщение|Původní zpráva|Původní e-mail|Alkuperäinen viesti|原始邮件|元のメッセージ)\s*-{2,}\s*$/i;
// A forwarded mail's quoted part is the point of it: when a forward comes before any quote, the
// whole text stays.
const FORWARD =
  /^\s*(-{3,}\s*(Forwarded message|Forwarded Message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Messaggio inoltrato|Doorgestuurd bericht|Mensagem encaminhada|Пересылаемое сообщение)\s*-{3,}|Begin forwarded message:|Anfang der weitergeleiteten Nachricht:|Début du message réexpédié\s*:)/i;
// Lines clients add under what one writes; only the whole line, never a sentence that starts so (a
// link after it allowed: "Get Outlook for iOS<https://aka.ms/…>" as text made from Outlook's HTML).
const FOOTER =
  /^\s*(Sent from my(\s+[\w.®'-]+){1,5}|Gesendet von meinem(\s+[\w.-]+){1,5}|Enviado desde mi(\s+[\w.-]+){1,4}|(iPhone|iPad)から送信|(发自|發自|从)我的\s?(iPhone|iPad|手机)(发送)?|(iPhone|iPad)에서 보냄|Verstuurd vanaf mijn (iPhone|iPad|smartphone)|Wysłane z (mojego )?(iPhone'?a|iPada|smartfona)|Sendt fra min (iPhone|iPad)|Skickat från min (iPhone|iPad)|Sent from (Mail|Outlook|Yahoo Mail) for \w+( \d+)?|Sent from Yahoo Mail on \w+|Get Outlook for (iOS|Android)|Von meinem (iPhone|iPad|Smartphone|Android-Gerät|Samsung[\w ]{0,20}) gesendet|Envoyé de mon (iPhone|iPad|smartphone)|Enviado desde mi (iPhone|iPad|smartphone)|Enviado do meu (iPhone|iPad|smartphone)|Inviato da (iPhone|iPad|il mio [\w ]{1,20})|Verzonden (vanaf|met) mijn (iPhone|iPad|smartphone)|Отправлено с (iPhone|iPad|Android)|Sent from (Acompli|TypeApp|BlueMail|Spark|Edison Mail|myMail|Newton)|Sent with Proton ?Mail secure email|Sent from Proton ?Mail (mobile|for (iOS|Android)))\.?(\s*<https?:\/\/[^\s<>]*>|\s*\[https?:\/\/[^\s\]]*\])?\s*$/i;
// "Sent from my …" is a footer only when it names a device: "Sent from my office account." is the
// customer's own sentence.
const DEVICE =
  /\b(iPhone|iPad|iPod|Android|BlackBerry|Galaxy|Samsung|Huawei|Honor|Xiaomi|Redmi|Pixel|Motorola|Moto|Nokia|Sony|Xperia|OnePlus|Oppo|Vivo|LG|HTC|Windows Phone|Kindle|Surface|mobile|phone|smartphone|tablet|device|handheld|Smartphone|Handy|Tablet|móvil|teléfono)\b/i;
const isFooter = (line: string) => FOOTER.test(line) && (!/^\s*Sent from my\s/i.test(line) || DEVICE.test(line));
/** Whether a line starts a forwarded mail ("---------- Forwarded message ---------", "Begin forwarded message:"). */
export const forwardLine = (line: string) => FORWARD.test(line);
/** Whether a line is a field of the header block above a quoted mail ("From: …", "От: …", "*Sent:* …"). */
export const headerField = (line: string) => FIELD.test(line);
const SIGNATURE = /^-- ?$/;
const SEPARATOR = /^\s*([-_=*]\s*){4,}$/;

// ">" or a supercite prefix of initials ("BM> ", The Bat!, Emacs): a 2002 Bat! answer below such a
// quote went to the quoted part whole (the SpamAssassin corpus, easy-ham-1/00066).
const isQuote = (line: string) => /^\s*(?:[A-Z]{1,3})?>/.test(line);
// A line marking what the replier cut from the quote ("[lost]", "[snip]", "..."): part of the quote.
// Tried on the trimmed line, and only on a short one: with spaces matched on both sides of an optional
// bracket, a line of 200,000 spaces took the regex about 100 s (one hostile mail stalled mail intake).
const ELISION_WORD = /^[[(<]?\s*(\.{3}|…|snip|lost|skipped|cut)[\w.]*\s*[\])>]?$/i;
const isElision = (line: string) => line.length <= 80 && ELISION_WORD.test(line.trim());
const blank = (line: string) => line.trim() === '';
// A header names a date or an address: that keeps "My colleague wrote:" in the reply.
const headerish = (s: string) => /\d/.test(s) || /@/.test(s);
// Stricter, for a line that only ends in ':' above a quoted block: an address, a time or a date, not
// any number ("Order 12345 has these items:" above the customer's own indented list stays theirs).
export const dateOrAddress = (s: string) =>
  /@/.test(s) || /\d{1,2}:\d{2}|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b|\b(19|20)\d{2}\b/.test(s);

interface Splitter {
  kind: 'header' | 'forward';
  /** The reply's words before the header on its own line, kept. */
  prefix: string;
  /** The first line after the header. */
  end: number;
}

/** The quote header starting at line i, if one does: "On … wrote:" over up to three lines, a field block, a separator. */
function splitterAt(lines: string[], i: number): Splitter | undefined {
  const line = lines[i]!;
  // A header inside a quote is part of the quote.
  if (isQuote(line)) return undefined;
  if (FORWARD.test(line)) return { kind: 'forward', prefix: '', end: i + 1 };
  if (ORIGINAL.test(line)) return { kind: 'header', prefix: '', end: i + 1 };
  for (let span = 1; span <= 3 && i + span <= lines.length; span++) {
    const parts = lines.slice(i, i + span);
    if (parts.slice(1).some(blank)) break;
    // A header over several lines starts with its opener or its date, never with the reply's words.
    if (span > 1 && !OPENER_AT_START.test(line)) break;
    const joined = parts.join(' ');
    if (joined.length > 400 || !((WROTE.test(joined) && headerish(joined)) || datedAddress(joined))) continue;
    const opener = OPENER.exec(line);
    const prefix = opener && opener.index > 0 ? line.slice(0, opener.index).replace(/[\s-]+$/, '') : '';
    return { kind: 'header', prefix, end: i + span };
  }
  // Two or more fields (a wrapped value between them allowed), or a lone From with an address.
  if (FIELD.test(line)) {
    let fields = 1;
    let j = i + 1;
    for (; j < lines.length && j <= i + 6; j++) {
      if (FIELD.test(lines[j]!)) fields++;
      else if (blank(lines[j]!) || (j > i + 1 && !FIELD.test(lines[j - 1]!))) break;
    }
    if (fields >= 2 || (i > 0 && FROM_FIELD.test(line) && line.includes('@')))
      return { kind: 'header', prefix: '', end: j };
  }
  // A line naming a date or an address just above a quoted block ("2011/4/7 Nathan <n@example.com>").
  const next = lines.slice(i + 1, i + 3).findIndex((l) => !blank(l));
  if (next >= 0 && isQuote(lines[i + 1 + next]!) && !isQuote(line) && !blank(line)) {
    if ((/[:：]\s*$/.test(line) && dateOrAddress(line)) || /<[^<>\s]+@[^<>\s]+>\s*[:：]?\s*$/.test(line))
      return { kind: 'header', prefix: '', end: i + 1 };
  }
  return undefined;
}

/** Whether the quoted block at line i opens with a quote header ("> On … wrote:", "> From: …" and "> Sent: …"). */
function headedQuote(lines: string[], i: number): boolean {
  const unquoted = lines.slice(i, i + 6).map((l) => (isQuote(l) ? l.replace(/^\s*(?:(?:[A-Z]{1,3})?>\s?)+/, '') : ''));
  return splitterAt(unquoted, 0)?.kind === 'header';
}

// A quoted line a client broke in two: its tail, between two quoted lines, holds no plain word
// ("_nonce=3dd518)", "(http://…) >"); an answer between quotes does ("Yes", "answer 1").
const brokenTail = (line: string) =>
  !line
    .replace(/\b\w+:\/\/\S+/g, '')
    .split(/\s+/)
    .some((w) => /^\p{L}+[.,!?:;]*$/u.test(w));

// Or a quoted line wrapped by a client that added no ">" to its rest: the rest starts in lower case,
// right under a long quoted line and shorter than it ("> … Nullam pharetra d" / "ignissim odio?",
// Crisp's corpus). An answer is rarely written in lower case, without a blank line, under a long line.
const wrappedTail = (quoted: string, line: string) =>
  /^\p{Ll}/u.test(line) && quoted.replace(/^\s*(?:[A-Z]{1,3})?>\s?/, '').length >= 60 && line.length < quoted.length;

/** Whether line j, between two quoted lines, is the rest of the one above it. */
const quotedTail = (lines: string[], j: number) =>
  j > 0 &&
  j + 1 < lines.length &&
  isQuote(lines[j - 1]!) &&
  isQuote(lines[j + 1]!) &&
  (brokenTail(lines[j]!) || wrappedTail(lines[j - 1]!, lines[j]!));

/** The first line after the quoted block starting at i (quoted lines and the blank lines among them). */
function quoteEnd(lines: string[], i: number): number {
  let end = i;
  for (let j = i; j < lines.length; j++) {
    const line = lines[j]!;
    if (isQuote(line)) end = j + 1;
    else if (quotedTail(lines, j)) continue;
    else if (!blank(line)) break;
  }
  return end;
}

/**
 * Splits a mail's text into the reply and the quoted part. Conservative, because a lost sentence
 * costs a customer and a quote shown collapsed costs nothing:
 * - a quote header ("On … wrote:", a From/Sent/To block, "-----Original Message-----", in many
 *   languages) followed by ">" lines takes those lines with it; what follows them stays (an answer
 *   written below the quote). A header followed by unmarked text takes everything below it, unless
 *   nothing comes before it: then it goes alone.
 * - answers between quotes ("> q1\nanswer 1\n> q2\nanswer 2") keep the whole text: the answers
 *   mean nothing without their questions.
 * - ">" lines without a header are taken only when nothing but blank lines follows them.
 * - a signature goes only from a "-- " line; a client's footer ("Sent from my iPhone") only as its
 *   own line.
 * - our "reply above this line" marker: everything from its line on is our own mail, quoted.
 * - a mail forwarded (the forward before any quote) stays whole.
 * A text that would be cut to nothing stays whole.
 */
export function replyText(input: string): ReplyParts {
  const whole = input.replace(/\r\n?/g, '\n').trim();
  let text = whole;
  const quoted: string[] = [];
  const marker = whole.toLowerCase().indexOf(REPLY_MARKER);
  if (marker >= 0) {
    // The marker's own line goes too: in a quote it starts with "> " or a client's header before it.
    const lineStart = whole.lastIndexOf('\n', marker) + 1;
    text = whole.slice(0, lineStart);
    quoted.push(whole.slice(lineStart));
  }
  const lines = text.split('\n');
  const keep: string[] = [];
  const taken: string[] = [];
  const keepWhole = (): ReplyParts => ({ text: whole, quoted: '' });
  // The first line from j on with text: known for every j, from the end up.
  const texts: number[] = new Array<number>(lines.length + 1).fill(lines.length);
  for (let j = lines.length - 1; j >= 0; j--) texts[j] = blank(lines[j]!) ? texts[j + 1]! : j;
  const nextText = (j: number) => texts[Math.min(j, lines.length)]!;
  let keptText = false;
  // The first line with text after a quote header; an elision line just above a quote is skipped.
  const quoteAfter = (end: number) => {
    const first = nextText(end);
    if (first >= lines.length || !isElision(lines[first]!)) return first;
    const next = nextText(first + 1);
    return next < lines.length && isQuote(lines[next]!) ? next : first;
  };
  // Each line's quote header, found once (a mail may be long).
  const splits = new Map<number, Splitter | undefined>();
  const splitAt = (j: number) => {
    if (!splits.has(j)) splits.set(j, splitterAt(lines, j));
    return splits.get(j);
  };
  // An answer between quotes: unquoted text after a block, then another quoted line (a quote
  // header and its quote below the answer are no answer's question). Worked out once for every
  // line, from the end up, so that a mail of many quotes costs linear time: after[j] for a reader
  // at line j who has not yet seen an answer, afterAnswer[j] for one who has.
  let after: boolean[] | undefined;
  const interleaved = (from: number) => {
    if (!after) {
      const n = lines.length;
      const plain: boolean[] = new Array<boolean>(n + 1).fill(false);
      const answered: boolean[] = new Array<boolean>(n + 1).fill(false);
      for (let j = n - 1; j >= 0; j--) {
        const line = lines[j]!;
        if (blank(line)) {
          plain[j] = plain[j + 1]!;
          answered[j] = answered[j + 1]!;
        } else if (isQuote(line) || quotedTail(lines, j)) {
          plain[j] = plain[j + 1]!;
          answered[j] = true;
        } else {
          const split = splitAt(j);
          if (!split) {
            plain[j] = answered[j + 1]!;
            answered[j] = answered[j + 1]!;
            continue;
          }
          // A header takes the rest, or its own quoted block.
          const next = split.kind === 'header' ? quoteAfter(split.end) : lines.length;
          if (next >= lines.length || !isQuote(lines[next]!)) continue;
          const k = quoteEnd(lines, next);
          plain[j] = plain[k]!;
          answered[j] = answered[k]!;
        }
      }
      after = plain;
    }
    return after[from]!;
  };
  let i = 0;
  while (i < lines.length) {
    const split = splitAt(i);
    if (split?.kind === 'forward') {
      if (!taken.length) return keepWhole();
      keep.push(...lines.slice(i));
      break;
    }
    if (split) {
      if (split.prefix) keep.push(split.prefix);
      keptText ||= !!split.prefix;
      // Set aside from the header on: the reply's words before it on its line stay in the reply only
      // (the quoted part held them twice: planer's "reply--- On … wrote:").
      const from = (to: number) => [lines[i]!.slice(split.prefix.length).trimStart(), ...lines.slice(i + 1, to)];
      const first = quoteAfter(split.end);
      if (first < lines.length && isQuote(lines[first]!)) {
        const end = quoteEnd(lines, first);
        if (interleaved(end)) return keepWhole();
        taken.push(...from(end));
        i = end;
        continue;
      }
      // A header block above everything the mail says (Outlook, answering below a forward's
      // header) is set aside alone: the text under it is the reply.
      if (!keptText && !split.prefix) {
        taken.push(...lines.slice(i, split.end));
        i = split.end;
        continue;
      }
      taken.push(...from(lines.length));
      break;
    }
    if (isQuote(lines[i]!)) {
      const end = quoteEnd(lines, i);
      if (nextText(end) >= lines.length) {
        taken.push(...lines.slice(i));
        break;
      }
      if (interleaved(end)) return keepWhole();
      // A quote that starts with its own header (iOS and Apple Mail write "> On … wrote:" inside it):
      // surely a quote; the answer below it stays, the quote is set aside.
      if (headedQuote(lines, i)) {
        taken.push(...lines.slice(i, end));
        i = end;
        continue;
      }
      // Unsure it is a quote (">>> http://…" in a newsletter): kept.
      keep.push(...lines.slice(i, end));
      keptText = true;
      i = end;
      continue;
    }
    keep.push(lines[i]!);
    keptText ||= !blank(lines[i]!);
    i++;
  }
  // The signature, from its delimiter; a client's footer line alone.
  // "--" without its space (a client trimmed it) is a delimiter only above a signature-sized rest: a
  // newsletter's "--" above its contents put the whole letter aside (the SpamAssassin corpus).
  const sig = keep.findIndex(
    (l, k) => l === '-- ' || (SIGNATURE.test(l) && keep.slice(k + 1).filter((r) => !blank(r)).length <= 15),
  );
  const signature = sig >= 0 ? keep.splice(sig) : [];
  // A mailing list's footer (Mailman: a rule, "NAME mailing list", its address and page) under the text.
  const list = keep.findLastIndex((l) => /^\s*_{2,}\s*$/.test(l));
  if (list >= 0) {
    const rest = keep.slice(list + 1).filter((l) => !blank(l));
    if (
      /\bmailing list\s*$/i.test(rest[0] ?? '') &&
      rest.length <= 4 &&
      rest.slice(1).every((l) => /^\s*(\S+@\S+|https?:\/\/\S+)\s*$/.test(l))
    )
      signature.unshift(...keep.splice(list));
  }
  const footers: string[] = [];
  const body = keep.filter((l) => (isFooter(l) ? !footers.push(l) : true));
  // Separator lines left above a cut quote ("____", an <hr> made text) go with it.
  while (body.length && (blank(body.at(-1)!) || SEPARATOR.test(body.at(-1)!))) body.pop();
  const reply = body
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!reply) return keepWhole();
  const aside = [...signature, ...footers, ...taken].join('\n').trim();
  return { text: reply, quoted: [aside, ...quoted].filter(Boolean).join('\n\n').trim() };
}
