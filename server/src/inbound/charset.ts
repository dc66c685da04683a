import { analyse } from 'chardet';
import iconv from 'iconv-lite';

// mailparser decodes each text part with the charset its header declares, and a part that declares
// us-ascii, utf-8 or nothing as UTF-8: bytes of another charset come out as U+FFFD or mojibake (a
// phone's Shift_JIS labelled ISO-2022-JP, 8-bit GB2312 in a part that names no charset, a subject
// or file name in raw Big5). So before parsing, the mail's labels are checked against its bytes, and
// a label the bytes cannot be is replaced by the charset detected (chardet); 8-bit header bytes that
// are not UTF-8 are turned into UTF-8. The bodies are left as they are: mailparser decodes them, now
// with the right charset. The original mail is kept unchanged.

// Charsets that have no 8-bit bytes: 8-bit bytes under such a label are another charset's.
const SEVEN_BIT = new Set(['us-ascii', 'ascii', 'iso-2022-jp', 'iso-2022-kr', 'iso-2022-cn', 'utf-7']);
const HIGH = /[\x80-\xff]/;
const SINGLE_BYTE = /^(iso[-_]?8859|windows-125|cp125|latin|l\d$|koi8)/;

function decodes(bytes: Uint8Array, charset: string): boolean {
  try {
    new TextDecoder(charset, { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const knownToDecoder = (charset: string) => {
  try {
    new TextDecoder(charset);
    return true;
  } catch {
    return false;
  }
};
// Labels the WHATWG decoder lacks but mail clients write (Outlook's "cp936", "ms936"), which mailparser
// decodes through iconv-lite: read the same way here, so that such a label is trusted, not re-detected
// (a GBK text labelled cp936 came out as EUC-JP mojibake).
const known = (charset: string) => knownToDecoder(charset) || iconv.encodingExists(charset);
/**
 * The bytes as text in the charset. windows-1252 (also what the labels ISO-8859-1, latin1 and us-ascii
 * mean, by the WHATWG table) goes through iconv-lite: Node 20's TextDecoder reads it as ISO-8859-1, 0x80-
 * 0x9F as C1 controls (0x97 gave U+0097, not an em dash), and Node 24's as the standard says.
 */
function decoded(bytes: Uint8Array, charset: string): string {
  if (!knownToDecoder(charset)) return iconv.decode(Buffer.from(bytes), charset);
  const decoder = new TextDecoder(charset);
  if (decoder.encoding !== 'windows-1252') return decoder.decode(bytes);
  return Buffer.from(bytes)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/** windows-1252's 0x80-0x9F as the WHATWG table has them: the five bytes it leaves unassigned stay C1 controls. */
const CP1252_HIGH = Array.from({ length: 32 }, (_, i) => {
  const c = iconv.decode(Buffer.from([0x80 + i]), 'cp1252');
  return c === '\ufffd' ? String.fromCharCode(0x80 + i) : c;
});

/**
 * Whether the bytes are text in the charset but for a few stray bytes (at most one character in
 * twenty): a Korean or Chinese mail with a mailing list's binary junk after its text, a Big5 page with
 * two bytes cut. Demanding every byte lost such a text to windows-1252, as a sweep of the SpamAssassin
 * corpus showed.
 */
function nearlyFits(bytes: Uint8Array, charset: string): boolean {
  if (SEVEN_BIT.has(charset.toLowerCase()) || !known(charset)) return false;
  const text = decoded(bytes, charset);
  return text.split('\uFFFD').length - 1 <= text.length / 20;
}

// Letters most text is written in: Latin, Greek, Cyrillic, kana, Hangul, and the punctuation of CJK
// text. A wrong decoding of CJK bytes yields rarer signs (bopomofo, small forms).
const COMMON = /[\u0000-\u024f\u0370-\u04ff\u3000-\u303f\u3040-\u30ff\uac00-\ud7af\uff01-\uff5e]/u;
const IDEOGRAPH = /\p{Script=Han}/u;
const HANGUL = /\p{Script=Hangul}/u;
/** Whether an ideograph is one of the everyday ones of a script: its code in that script's charset. */
const everyday = (char: string, charset: 'gb2312' | 'big5' | 'shift_jis') => {
  const code = iconv.encode(char, charset);
  if (code.length !== 2) return false;
  const n = code.readUInt16BE(0);
  // GB2312's two levels (6763 hanzi), Big5's frequent hanzi (5401), JIS X 0208 level 1 (2965 kanji).
  if (charset === 'gb2312') return n >= 0xb0a1 && n <= 0xf7fe;
  if (charset === 'big5') return n >= 0xa440 && n <= 0xc67e;
  return n >= 0x889f && n <= 0x9872;
};
/**
 * How much of a text is made of common letters. Ideographs count only when they are everyday ones of
 * one script (simplified, traditional or Japanese, the one that fits best): GB2312 bytes read as Big5
 * or EUC-JP are ideographs too ("扂腔隆等" for "我的订单"), only rare ones, and a short subject gave
 * chardet no other way to tell (all alike at confidence 10).
 */
function commonShare(text: string): number {
  const chars = [...text].slice(0, 2000);
  const han = chars.filter((c) => IDEOGRAPH.test(c));
  const other = chars.length - han.length;
  // Korean is written in Hangul, hardly ever mixed with ideographs: Chinese bytes read as EUC-KR are
  // such a mix ("밑黨乖돨땐데").
  const hangul = chars.filter((c) => HANGUL.test(c)).length;
  const mixed = han.length * 10 > hangul;
  const commonOther = chars.filter((c) => !IDEOGRAPH.test(c) && COMMON.test(c) && !(mixed && HANGUL.test(c))).length;
  const fitting = han.length
    ? Math.max(...(['gb2312', 'big5', 'shift_jis'] as const).map((cs) => han.filter((c) => everyday(c, cs)).length))
    : 0;
  return (commonOther + fitting) / Math.max(1, other + han.length);
}

/**
 * The charset the bytes are in, by chardet's guesses: among the likeliest ones they decode in (nearly)
 * without loss, the one whose text is most made of common letters (a short GB2312 subject is as likely Big5
 * to chardet). Undefined when the bytes decode in none of them.
 */
function detect(bytes: Uint8Array): string | undefined {
  if (decodes(bytes, 'utf-8')) return 'utf-8';
  const guesses = analyse(bytes).filter((g) => nearlyFits(bytes, g.name));
  const top = guesses[0]?.confidence ?? 0;
  let best: { name: string; share: number } | undefined;
  for (const g of guesses.filter((g) => g.confidence >= top - 10)) {
    const share = commonShare(decoded(bytes, g.name));
    if (!best || share > best.share) best = { name: g.name, share };
  }
  return best?.name;
}

/**
 * The charset a text part's bytes should be decoded with, when its label cannot be right: 8-bit bytes
 * under a 7-bit label, an unknown one (DEFAULT_CHARSET, CHINESEBIG5, unknown-8bit: decoded as UTF-8,
 * every 8-bit byte was lost) or none, bytes that are not valid in the (multi-byte) charset named. A
 * label the bytes can be, or nearly, is trusted (an ISO-8859-1 part always can).
 */
export function charsetFor(bytes: Uint8Array, declared: string | undefined): string | undefined {
  const label = (declared ?? 'us-ascii').trim().toLowerCase();
  if (!HIGH.test(Buffer.from(bytes).toString('latin1'))) return undefined;
  // UTF-8 under a single-byte label (a web form's mail, a client's default of ISO-8859-1): every byte
  // "fits" ISO-8859-1, and "Grüße" came out as "GrÃ¼ÃŸe". Text in a single-byte charset is valid
  // UTF-8 by chance only in mojibake itself.
  if (SINGLE_BYTE.test(label) && decodes(bytes, 'utf-8')) return 'utf-8';
  if (nearlyFits(bytes, label)) return undefined;
  // Every byte is a character in windows-1252: a wrong letter now and then, never a lost one.
  const found = detect(bytes) ?? 'windows-1252';
  return found.toLowerCase() === label ? undefined : found;
}

/** The body's bytes once its transfer encoding is undone (the charset is not touched). */
function bodyBytes(body: string, encoding: string): Buffer {
  if (encoding === 'base64') return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (encoding === 'quoted-printable')
    return Buffer.from(
      body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    );
  return Buffer.from(body, 'latin1');
}

/**
 * A header block with its 8-bit bytes, if they are not UTF-8, decoded into UTF-8: by the charset of
 * the mail's text when they are valid in it (a subject is too short to detect well), else detected.
 */
function utf8Header(header: string, hint: string | undefined): string {
  if (!HIGH.test(header)) return header;
  const bytes = Buffer.from(header, 'latin1');
  if (decodes(bytes, 'utf-8')) return header;
  // Detected on the 8-bit runs alone: the ASCII around them would weigh for a Latin charset.
  const runs = Buffer.from((header.match(/[\x80-\xff]+/g) ?? []).join(' '), 'latin1');
  // The hint tried on the whole block too: a Big5 or Shift_JIS character's second byte may be ASCII.
  const fits =
    hint && ((known(hint) && !SEVEN_BIT.has(hint.toLowerCase()) && decodes(bytes, hint)) || nearlyFits(runs, hint));
  const charset = fits ? hint : (detect(runs) ?? 'windows-1252');
  const text = decoded(bytes, charset);
  return Buffer.from(text, 'utf8').toString('latin1');
}

const ENCODED_WORD = /=\?([^?\s*]+)(\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=/g;

/**
 * A header block with each RFC 2047 word whose bytes cannot be in the charset it names relabelled:
 * Japanese phones write Shift_JIS bytes into "=?ISO-2022-JP?B?…?=" words (a 7-bit charset), which
 * came out as mojibake in the subject and the sender's name while the body, relabelled, read fine. The
 * text's charset is tried first (a name is too short to detect well), then detection.
 */
function relabelWords(header: string, hint: string | undefined): string {
  if (!header.includes('=?')) return header;
  return header.replace(ENCODED_WORD, (word, label: string, lang: string | undefined, kind: string, data: string) => {
    const bytes =
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          );
    if (!charsetFor(bytes, label)) return word;
    const charset = hint && nearlyFits(bytes, hint) ? hint : charsetFor(bytes, label)!;
    return `=?${charset}${lang ?? ''}?B?${bytes.toString('base64')}?=`;
  });
}

function withCharset(header: string, charset: string, newline: string): string {
  const field = /^content-type:[^\n]*(\n[ \t][^\n]*)*/im.exec(header);
  if (!field) return `${header}${newline}Content-Type: text/plain; charset=${charset}`;
  const value = field[0].replace(/\r$/, '');
  const next = /charset\s*=\s*("[^"]*"|[^;\s]+)/i.test(value)
    ? value.replace(/charset\s*=\s*("[^"]*"|[^;\s]+)/i, `charset=${charset}`)
    : `${value}; charset=${charset}`;
  return header.slice(0, field.index) + next + header.slice(field.index + value.length);
}

/**
 * What the walk learns, a hint for the headers: the charset of the mail's first 8-bit text, else the
 * first charset a text part names (an HTML part in pure ASCII, its letters as entities).
 */
interface Walk {
  hint?: string;
  named?: string;
}

// A Content-Type whose parameters follow the type without their ";" ("TEXT/PLAIN charset=US-ASCII", a
// 2002 bulk mailer in the SpamAssassin corpus): mailparser took "text/plain charset=us-ascii" for a
// type of its own, and the mail's whole text became a nameless file. The ";" is put back.
const NO_SEMICOLON = /^(content-type:[ \t]*[\w.+-]+\/[\w.+-]+)[ \t]+(?=[\w-]+[ \t]*=)/im;

function fixEntity(entity: string, depth: number, walk: Walk): string {
  const gap = /^\r?\n/.exec(entity) ?? /\r?\n\r?\n/.exec(entity);
  if (!gap) return utf8Header(relabelWords(entity, walk.hint), walk.hint);
  let header = entity.slice(0, gap.index).replace(NO_SEMICOLON, '$1; ');
  const body = entity.slice(gap.index + gap[0].length);
  const newline = gap[0].startsWith('\r') ? '\r\n' : '\n';
  const unfolded = header.replace(/\r?\n[ \t]+/g, ' ');
  const type = /^content-type:\s*([^;\s]+)(.*)$/im.exec(unfolded);
  const mime = type?.[1]!.toLowerCase() ?? 'text/plain';
  const params = type?.[2] ?? '';
  let fixedBody = body;
  const boundary = /boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(params);
  if (mime.startsWith('multipart/') && boundary && depth < 20) {
    const name = boundary[1] ?? boundary[2]!;
    const b = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const delimiter = new RegExp(`(?:^|\\r?\\n)--${b}(?:--)?[ \\t]*(?=\\r?\\n|$)`, 'g');
    let out = '';
    let last = 0;
    let inPart = false;
    for (const m of body.matchAll(delimiter)) {
      const piece = body.slice(last, m.index);
      out += inPart ? fixPart(piece, depth, walk) : piece;
      out += m[0];
      last = m.index + m[0].length;
      // The closing delimiter ("--boundary--") has the epilogue after it, no part.
      inPart = !m[0].trimEnd().endsWith(`--${name}--`);
    }
    const tail = body.slice(last);
    fixedBody = out + (inPart && last > 0 ? fixPart(tail, depth, walk) : tail);
  } else if (mime.startsWith('text/')) {
    const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(unfolded)?.[1]!.toLowerCase() ?? '7bit';
    const declared = /charset\s*=\s*"?([^";\s]+)"?/i.exec(params)?.[1];
    const bytes = bodyBytes(body, encoding);
    const charset = charsetFor(bytes, declared);
    if (charset) header = withCharset(header, charset, newline);
    if (!walk.hint && HIGH.test(bytes.toString('latin1'))) walk.hint = charset ?? declared;
    walk.named ??= declared;
  }
  const hint = walk.hint ?? walk.named;
  return utf8Header(relabelWords(header, hint), hint) + gap[0] + fixedBody;
}

// A part between two delimiters starts with the line break that ends the delimiter's line.
function fixPart(piece: string, depth: number, walk: Walk): string {
  const lead = /^\r?\n/.exec(piece)?.[0] ?? '';
  return lead + fixEntity(piece.slice(lead.length), depth + 1, walk);
}

/** The mail with each text part's charset label fitting its bytes, and its headers' 8-bit bytes UTF-8. */
export function fixCharsets(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const fixed = fixEntity(text, 0, {});
  return fixed === text ? raw : Buffer.from(fixed, 'latin1');
}

/**
 * A text file's bytes in UTF-8, the one charset the shop keeps text files in (as an upload must be):
 * decoded by its label where the bytes can be in it, else by the charset detected. Undefined when
 * they are UTF-8 already, or no charset reads them. A KMail user's ISO-8859-1 .txt (the SpamAssassin
 * corpus, hard-ham-1/00241) was refused as not UTF-8.
 */
export function utf8File(bytes: Uint8Array, declared: string | undefined): Uint8Array | undefined {
  if (decodes(bytes, 'utf-8')) return undefined;
  const charset = charsetFor(bytes, declared) ?? declared;
  if (!charset || !known(charset)) return undefined;
  return Buffer.from(decoded(bytes, charset), 'utf8');
}
