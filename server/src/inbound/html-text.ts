import type { ChildNode, Element } from 'domhandler';
import { convert, type FormatCallback } from 'html-to-text';

/**
 * HTML characters handed to html-to-text and the quote finder, and the nesting they are given
 * (parse-mail.ts leaves deeper tags out): html-to-text's time grows faster than the depth (200 KB of
 * nested <div> took 1.9 s, even with its own maxDepth), and both recurse.
 */
export const HTML_MAX = 256 * 1024;
export const HTML_MAX_DEPTH = 64;

// Elements a browser lays out as blocks: text on either side of one is on another line.
const BLOCK = new Set(
  'address article aside blockquote body center dd div dl dt fieldset figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section table tbody td tfoot th thead tr ul'.split(
    ' ',
  ),
);
const isTag = (node: ChildNode): node is Element =>
  node.type === 'tag' || node.type === 'script' || node.type === 'style';
export const isBlock = (node: ChildNode) => isTag(node) && BLOCK.has(node.name);
const rendersNothing = (node: ChildNode) => (node.type === 'text' ? !node.data.trim() : !isTag(node));

/** The first character the HTML renders from node on: " " for a block or a line break, undefined for none. */
function firstChar(node: ChildNode): string | undefined {
  if (node.type === 'text') return node.data[0];
  if (!isTag(node)) return undefined;
  if (BLOCK.has(node.name) || node.name === 'br' || node.name === 'img') return ' ';
  for (const child of node.children) {
    const c = firstChar(child);
    if (c !== undefined) return c;
  }
  return undefined;
}

/** Whether text follows node with no space between (a link over "Präsenz" of "Präsenzposten"). */
function gluedToNext(node: ChildNode): boolean {
  for (let n: ChildNode | null = node; n; n = n.parent as ChildNode | null) {
    if (n !== node && isBlock(n)) return false;
    for (let s = n.next; s; s = s.next) {
      const c = firstChar(s);
      if (c !== undefined) return /\S/.test(c);
    }
  }
  return false;
}

/** Whether a <br> ends its block with text before it: a browser draws no empty line for it. */
function endsBlock(br: ChildNode): boolean {
  for (let n: ChildNode = br; ; n = n.parent as ChildNode) {
    for (let s = n.next; s; s = s.next) if (!rendersNothing(s)) return false;
    if (!n.parent || n.parent.type !== 'tag' || BLOCK.has(n.parent.name)) break;
  }
  for (let n: ChildNode = br; ; n = n.parent as ChildNode) {
    for (let s = n.prev; s; s = s.prev) if (!rendersNothing(s)) return true;
    if (!n.parent || n.parent.type !== 'tag' || BLOCK.has(n.parent.name)) return false;
  }
}

const lineBreak: FormatCallback = (elem, _walk, builder) => {
  if (!endsBlock(elem as ChildNode)) builder.addLineBreak();
};

/** A table cell: its text, then a space before the next cell's (layout tables hold most mails' text). */
const cell: FormatCallback = (elem, walk, builder) => {
  walk(elem.children ?? [], builder);
  builder.addInline(' ');
};

/**
 * A link: its text, and its address after it where it says something the text does not (a web
 * address, not the same as the text) and a space follows the link: inside a word it would split it.
 */
const anchor: FormatCallback = (elem, walk, builder) => {
  walk(elem.children ?? [], builder);
  const href = String(elem.attribs?.href ?? '').trim();
  if (!/^https?:\/\//i.test(href) || gluedToNext(elem as ChildNode)) return;
  const text = textOf(elem as ChildNode);
  const bare = (s: string) => s.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  if (bare(text) === bare(href)) return;
  builder.addInline(` [${href}]`, { noWordTransform: true });
};

const textOf = (node: ChildNode): string =>
  node.type === 'text' ? node.data : isTag(node) ? node.children.map(textOf).join('').trim() : '';

/** An image: its alternative text, if any; its address (often cid:…, the file attached) is no word. */
const image: FormatCallback = (elem, _walk, builder) => {
  const alt = String(elem.attribs?.alt ?? '').trim();
  if (alt) builder.addInline(`[${alt}]`);
};

/**
 * An HTML mail's text as a reader sees it rendered: a space only where the HTML shows one. Text after
 * </html> is shown by a browser too (a mailing list's footer appended to an HTML mail, the SpamAssassin
 * corpus) and html-to-text, reading the body only, dropped it: it is kept, unless it is a list's binary
 * junk (bytes no charset decodes: the text would hold U+FFFD).
 */
export function htmlText(html: string): string {
  const end = html.toLowerCase().lastIndexOf('</html');
  const close = end < 0 ? -1 : html.indexOf('>', end);
  if (close < 0) return bodyText(html);
  const after = html.slice(close + 1);
  const trailer = after.includes('\uFFFD') ? '' : bodyText(after).trim();
  const text = bodyText(html.slice(0, end));
  return trailer ? `${text}\n\n${trailer}` : text;
}

function bodyText(html: string): string {
  const text = convert(html, {
    wordwrap: false,
    limits: { maxInputLength: HTML_MAX, maxDepth: HTML_MAX_DEPTH },
    formatters: { lineBreak, cell, anchor, image },
    selectors: [
      { selector: 'br', format: 'lineBreak' },
      { selector: 'a', format: 'anchor' },
      { selector: 'img', format: 'image' },
      // Layout tables: a row is a line, its cells side by side; not html-to-text's column layout.
      { selector: 'table', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'td', format: 'cell' },
      { selector: 'th', format: 'cell' },
      // Outlook writes each line as a paragraph without margins (its style says so).
      { selector: 'p.MsoNormal', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    ],
  });
  // A line of only spaces (Outlook's <o:p>&nbsp;</o:p>) is an empty line.
  return text.replace(/^[ \t\u00a0]+$/gm, '');
}
