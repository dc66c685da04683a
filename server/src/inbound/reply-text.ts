import EmailReplyParser from 'email-reply-parser';
import { REPLY_MARKER } from '../mail/threading.js';

const parser = new EmailReplyParser();

// Quote headers the library does not know, in the shapes clients write them: Outlook's separator
// line and its From/Sent block in English and German, and "On … wrote:" folded over two lines.
const CUT_AT = [
  /^-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}\s*$/im,
  /^_{10,}\s*$/m,
  /^(From|Von|De):\s.*\n(Sent|Gesendet|Envoyé|Date|Datum):\s/im,
  /^(On|Am|Le)\s[^\n]{0,200}\n?[^\n]{0,200}(wrote|schrieb|a écrit)\s?:\s*$/im,
];

/**
 * The new text of a mail: everything above our "reply above this line" marker, without the quoted
 * history and signature (email-reply-parser, plus the Outlook shapes above). A mail that is only a
 * quote (or whose new text the rules would cut to nothing) keeps its whole text: losing what a
 * customer wrote is worse than showing a quote twice.
 */
export function replyText(text: string): string {
  const whole = text.replace(/\r\n/g, '\n').trim();
  let cut = whole;
  const marker = cut.toLowerCase().indexOf(REPLY_MARKER);
  if (marker >= 0) {
    // The marker's own line goes too: in a quote it starts with "> " or a client's header before it.
    const lineStart = cut.lastIndexOf('\n', marker) + 1;
    cut = cut.slice(0, lineStart);
  }
  for (const re of CUT_AT) {
    const m = re.exec(cut);
    if (m) cut = cut.slice(0, m.index);
  }
  cut = parser.parseReply(cut).trim();
  // "On … wrote:" left behind when the marker cut the quote under it.
  cut = cut.replace(/\n[^\n]*(wrote|schrieb|a écrit)\s?:\s*$/i, '').trim();
  return cut || whole;
}
