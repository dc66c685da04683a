import { simpleParser, type AddressObject, type Attachment, type ParsedMail } from 'mailparser';
import { fixCharsets, utf8File } from './charset.js';
import { autoHeadersOf, bounceOf, type AutoHeaders, type Bounce } from './classify.js';
import { htmlQuotes, QUOTE_MARK, type HtmlQuotes } from './html-quotes.js';
import { HTML_MAX, HTML_MAX_DEPTH, htmlText } from './html-text.js';
import { replyText, type ReplyParts } from './reply-text.js';
import { mailSender } from './sender.js';
import { uudecode } from './uudecode.js';

/**
 * What the pipeline takes from one mail: plain data only (it crosses from the parser thread to the
 * main thread by structured clone), every string without NUL characters (PostgreSQL refuses them in
 * text, so such a mail would never become a ticket).
 */
export interface ParsedInbound {
  /** The sender's address by RFC 5322 (sender.ts), lower-cased; "" when none can be said. */
  sender: string;
  /** Why no sender can be said (an unparsable From, several mailboxes and no Sender): the mail is unusable. */
  senderError: string | undefined;
  /** The sender's display name, trimmed; "" when none. */
  name: string;
  subject: string;
  /** The new text (reply-text.ts), at most MESSAGE_MAX characters; "(no text)" when there is none. */
  text: string;
  /**
   * The quoted history and signature replyText set aside, at most MESSAGE_MAX characters; "" when none.
   * Kept beside the message and shown collapsed to staff: where the split is wrong, nothing is lost.
   */
  quoted: string;
  messageId: string | null;
  inReplyTo: string | undefined;
  references: string[];
  to: string[];
  cc: string[];
  auto: AutoHeaders;
  /** Set for a delivery failure report (classify.ts). */
  bounce: Bounce | undefined;
  attachments: MailFile[];
}

export interface MailFile {
  /** "" when the mail names none. */
  filename: string;
  contentType: string;
  /** An inline part (multipart/related), such as an image in the HTML. */
  related: boolean;
  content: Uint8Array;
}

/** The longest new text kept (the ticket's message). */
export const MESSAGE_MAX = 50_000;

// Caps on what each parser is given, so that no mail's shape makes one of them slow (issue 28). A
// mail longer than these keeps its beginning (where the new text is) and the original as an .eml.
/** Text handed to the quote rules: email-reply-parser's time grows with the square of the lines. */
const TEXT_MAX = 200_000;
const REPLY_MAX_LINES = 2_000;

const noNul = (s: string) => s.replace(/\0/g, '');

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => noNul(v.address ?? '')));

/** Parses one mail as it arrived (runs in the parser thread: parser-thread.ts). */
export async function parseMail(raw: Buffer): Promise<ParsedInbound> {
  // Charset labels checked against the bytes first (charset.ts): mailparser decodes by the label.
  const mail = await simpleParser(fixCharsets(raw), {
    // Text from HTML is made below, on bounded input; HTML from text and links are never used.
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const from = mailSender(mail);
  const references = typeof mail.references === 'string' ? [mail.references] : (mail.references ?? []);
  return {
    sender: 'error' in from ? '' : noNul(from.address),
    senderError: 'error' in from ? noNul(from.error) : undefined,
    name: 'error' in from ? '' : noNul(from.name ?? ''),
    subject: noNul(mail.subject ?? ''),
    ...newText(mail),
    messageId: noNul(mail.messageId?.trim() ?? '') || null,
    inReplyTo: mail.inReplyTo === undefined ? undefined : noNul(mail.inReplyTo),
    references: references.map(noNul),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    auto: autoHeadersOf(mail),
    bounce: 'error' in from ? undefined : bounceOf(mail, raw, noNul(from.address)),
    attachments: mail.attachments.map(mailFile),
  };
}

/**
 * One of the mail's files; a uuencoded part decoded (its name from its "begin" line when it has none),
 * a text file made UTF-8.
 */
function mailFile(a: Attachment): MailFile {
  const encoding = String(a.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  const uu = /^(x-)?uu(encode|e)?$/.test(encoding) ? uudecode(Buffer.from(a.content).toString('latin1')) : undefined;
  const content = uu?.content ?? a.content;
  // A text file in another charset than UTF-8 is turned into UTF-8 (its label read as for text parts).
  const type = a.headers.get('content-type');
  const params = typeof type === 'object' && 'params' in type ? (type.params as Record<string, string>) : {};
  return {
    filename: noNul(a.filename || uu?.name || ''),
    contentType: noNul(a.contentType),
    related: Boolean(a.related),
    content: (/^text\//i.test(a.contentType) && utf8File(content, params.charset)) || content,
  };
}

/**
 * The new text: the plain part (or text made from the HTML), without quotes unless forwarded; and the
 * quoted part set aside.
 */
function newText(mail: ParsedMail): { text: string; quoted: string } {
  // mailparser makes no text from the HTML here (skipHtmlToText): made here, on bounded input, for an
  // HTML-only mail and for HTML inside a multipart/related (HTML with inline images) alike.
  const plain = mail.text?.trim();
  const html = typeof mail.html === 'string' ? flattened(mail.html.slice(0, HTML_MAX)) : '';
  const found = html ? htmlQuotes(html) : undefined;
  let parts: ReplyParts;
  if (!plain)
    parts = (found && fromHtmlQuotes(found, quoteTexts(found))) ?? replyText(bounded(html ? htmlText(html) : ''));
  else {
    // multipart/alternative: the plain part is read first, but where it lost the quote's boundary (no
    // ">" marks, a header block in a language the text rules do not know: Outlook, Windows Mail) its
    // reply still holds the quote the HTML part marks; then the client's marks decide. The HTML's own
    // answer is read only then: most mails' plain part holds no marked quote.
    parts = replyText(bounded(plain));
    const quotes = found && quoteTexts(found);
    const marked = found && quotes?.some((q) => holds(parts.text, q)) ? fromHtmlQuotes(found, quotes) : undefined;
    if (marked) parts = marked;
  }
  return { text: parts.text.slice(0, MESSAGE_MAX) || '(no text)', quoted: parts.quoted.slice(0, MESSAGE_MAX) };
}

const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

/** Whether a text holds the beginning of a quote (its first words in a row; at least three of them). */
function holds(text: string, quote: string): boolean {
  const start = wordsOf(quote).slice(0, 12);
  return start.length >= 3 && ` ${wordsOf(text).join(' ')} `.includes(` ${start.join(' ')} `);
}

/**
 * An HTML mail split where its client marks the quotes (html-quotes.ts): the text around them is the
 * answer, the quotes are set aside. The text rules still read the answer (a signature, a quote the
 * client did not mark), with a line standing where each quote was: ">" lines above it are not the
 * mail's last. Undefined, for the text rules to decide on the whole, when no quote is marked, when
 * the sender wrote between quotes (the answers mean nothing without their questions), or when
 * nothing is left outside them.
 */
function fromHtmlQuotes(found: HtmlQuotes, quotes: string[]): ReplyParts | undefined {
  const answer = bounded(htmlText(found.answer));
  const pieces = answer.split(QUOTE_MARK).map((p) => p.replace(/[>\s]+$/, '').trim());
  if (pieces.slice(1, -1).some(Boolean) || !pieces.some(Boolean)) return undefined;
  const { text, quoted } = replyText(answer);
  const reply = unmarked(text);
  if (!reply) return undefined;
  return { text: reply, quoted: [unmarked(quoted), ...quotes].filter(Boolean).join('\n\n') };
}

/** The text of each quote the HTML's client marked. */
const quoteTexts = (found: HtmlQuotes) => found.quotes.map((q) => bounded(htmlText(q)));

const unmarked = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.replace(/^[>\s]+/, '').trim() !== QUOTE_MARK)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** Elements that have no end tag: they open no level. */
const VOID = new Set('area base br col embed hr img input link meta param source track wbr'.split(' '));

/**
 * The HTML with every tag deeper than HTML_MAX_DEPTH left out (their text stays), in one pass. Tags
 * are told apart by a pattern that never reads past the next `<`, so no character is read twice.
 */
function flattened(html: string): string {
  let depth = 0;
  return html.replace(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*>/g, (tag, close: string, name: string) => {
    if (VOID.has(name.toLowerCase()) || tag.endsWith('/>')) return tag;
    if (close) return depth-- > HTML_MAX_DEPTH ? '' : tag;
    return ++depth > HTML_MAX_DEPTH ? '' : tag;
  });
}

/**
 * The text the quote rules read: without NUL characters, runs of blank lines made one (a person's
 * text reads the same; 30,000 empty lines took email-reply-parser 19 s), its first lines only.
 */
function bounded(text: string): string {
  const lines = noNul(text.slice(0, TEXT_MAX))
    .replace(/\r\n?/g, '\n')
    .replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, '\n\n')
    .split('\n', REPLY_MAX_LINES);
  return lines.join('\n').trim();
}
