import { Element, Text, type ChildNode } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import { isBlock } from './html-text.js';
import { dateOrAddress, forwardLine, headerField } from './reply-text.js';

/**
 * The quoted history of an HTML mail, found where its client marks it (issue 29), and the mail
 * without it. Clients mark it in two ways:
 * - a container holding the quote and its "On … wrote:" line: Gmail's `gmail_quote` (with its
 *   `gmail_attr`), Yahoo's `yahoo_quoted`, a `<blockquote type="cite">` (Apple Mail, Thunderbird, with
 *   Thunderbird's `moz-cite-prefix` line above it), any `<blockquote>` right under a line naming a date
 *   or an address and ending in ":" (Mail.ru). What follows such a container is the sender's again.
 * - a mark from which on everything is the quoted mail: Outlook's `divRplyFwdMsg` (and the `<hr>`
 *   above it) and `appendonsend`, Outlook for Mac's `OLK_SRC_BODY_SECTION`, Hotmail's
 *   `<hr id="stopSpelling">`, and the From/Sent block in a box with a top border that Outlook
 *   desktop and Windows Mail draw.
 * A container that starts a forward, or one holding the sender's own words between its quotes
 * (Gmail keeps answers written into the quote inside it), is left to the text rules.
 */
export interface HtmlQuotes {
  /** The mail's HTML with each quote replaced by a paragraph holding QUOTE_MARK. */
  answer: string;
  /** Each quote's HTML, in the mail's order. */
  quotes: string[];
}

/** Stands for a quote in the answer's text: where it was tells above, below and between apart. */
export const QUOTE_MARK = 'QUOTED-PART-6b1f0c';

const classes = (el: Element) => (el.attribs.class ?? '').split(/\s+/);
const id = (el: Element) => el.attribs.id ?? '';
const blank = (node: ChildNode) => (node.type === 'text' ? !node.data.trim() : node.type === 'comment');
const textOf = (nodes: ChildNode | ChildNode[]) => DomUtils.textContent(nodes).replace(/\s+/g, ' ').trim();

/** A quote's "On … wrote:" line: it names a date or an address and ends in a colon. */
const attribution = (text: string) => text.length < 400 && /[:：]$/.test(text) && /[\d@]/.test(text);
// Above a bare <blockquote> (no type=cite, no client's class) more is asked: Gmail's Indent button
// makes one too, under the customer's own "Order 12345 has these items:". A client's line names the
// sender's address, a time or a date ("… 11:00 +0300 от Shop <help@shop.example>:").
const citeLine = (text: string) => attribution(text) && dateOrAddress(text);

// The box Outlook desktop (2007 to 365: #B5C4DF, #E1E1E1) and Windows Mail (rgb(229, 229, 229)) draw.
const CLIENT_BOX = /border-top:\s*solid #(B5C4DF|E1E1E1) 1\.0pt|border-top-color:\s*rgb\(229, 229, 229\)/i;

/** Where everything from this element on is the quoted mail. */
function startsTail(el: Element): boolean {
  const elId = id(el);
  if (/(^|_)divRplyFwdMsg$/.test(elId) || elId === 'appendonsend' || elId === 'OLK_SRC_BODY_SECTION') return true;
  if (el.name === 'hr' && elId === 'stopSpelling') return true;
  // Outlook desktop and Windows Mail: the From/Sent/To block in a box with a top border.
  // Their exact box names the block in any language; another box with a top border needs known field names.
  const style = el.attribs.style ?? '';
  if (!/border-top(-style)?\s*:\s*solid/i.test(style)) return false;
  const text = textOf(el);
  return headerField(text) || (CLIENT_BOX.test(style) && /^[^:：]{1,30}[:：]/.test(text));
}

/** The nodes of a quote that starts at nodes[i] and goes on to the end of the mail. */
function tail(el: Element): ChildNode[] {
  const out: ChildNode[] = [];
  // Outlook draws a rule above its header block: it belongs to the quote.
  let first: ChildNode = el;
  for (let p = el.prev; p && (blank(p) || (DomUtils.isTag(p) && p.name === 'hr')); p = p.prev) if (!blank(p)) first = p;
  for (let n: ChildNode | null = first; n; n = n.next) out.push(n);
  for (let parent = el.parent; parent && parent.type !== 'root'; parent = parent.parent)
    for (let n = (parent as ChildNode).next; n; n = n.next) out.push(n);
  return out;
}

/** The line above nodes[i] that introduces its quote ("On … wrote:", moz-cite-prefix), with what lies between. */
function attributionBefore(nodes: ChildNode[], i: number): ChildNode[] {
  let j = i - 1;
  while (j >= 0 && (blank(nodes[j]!) || (DomUtils.isTag(nodes[j]!) && (nodes[j] as Element).name === 'br'))) j--;
  if (j < 0) return [];
  const prev = nodes[j]!;
  if (DomUtils.isTag(prev) && (classes(prev).includes('moz-cite-prefix') || isBlock(prev)))
    return classes(prev).includes('moz-cite-prefix') || citeLine(textOf(prev)) ? nodes.slice(j, i) : [];
  // Inline text up to the line break or block before it (Mail.ru: "… от Name <a@b.c>:<br>").
  let start = j;
  while (start > 0) {
    const n = nodes[start - 1]!;
    if (isBlock(n) || (DomUtils.isTag(n) && n.name === 'br')) break;
    start--;
  }
  return citeLine(textOf(nodes.slice(start, j + 1))) ? nodes.slice(start, i) : [];
}

/** Text of a container outside its blockquotes and its attribution line. */
function ownText(el: Element): string {
  const parts: string[] = [];
  const visit = (nodes: ChildNode[]) => {
    for (const n of nodes) {
      if (n.type === 'text') parts.push(n.data);
      else if (DomUtils.isTag(n) && n.name !== 'blockquote' && !classes(n).includes('gmail_attr')) visit(n.children);
    }
  };
  visit(el.children);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

type Found = ChildNode[] | 'keep' | undefined;

/** The quote container at nodes[i], if it is one: its nodes (the attribution above it first), or 'keep' for a forward. */
function containerAt(nodes: ChildNode[], i: number): Found {
  const el = nodes[i] as Element;
  const cls = classes(el);
  const forward = (text: string) => forwardLine(text);
  if (cls.some((c) => /gmail_quote(_container)?$/.test(c))) {
    if (forward(textOf(el))) return 'keep';
    // Answers typed into the quote stay inside Gmail's container: then each blockquote is a quote.
    const own = ownText(el);
    return !own || attribution(own) ? [el] : undefined;
  }
  if (cls.includes('yahoo_quoted') || id(el).startsWith('yahoo_quoted')) return forward(textOf(el)) ? 'keep' : [el];
  if (el.name !== 'blockquote') return undefined;
  const above = attributionBefore(nodes, i);
  if (above.length && forward(textOf(above))) return 'keep';
  if (el.attribs.type?.toLowerCase() === 'cite' || above.length) return [...above, el];
  return undefined;
}

/** The quotes of an HTML mail and the mail without them; undefined when it marks none. */
export function htmlQuotes(html: string): HtmlQuotes | undefined {
  const doc = parseDocument(html);
  const found: ChildNode[][] = [];
  const walk = (nodes: ChildNode[]): boolean => {
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (!DomUtils.isTag(n) || n.name === 'head' || n.name === 'style' || n.name === 'script') continue;
      if (startsTail(n)) {
        found.push(tail(n));
        return true;
      }
      const container = containerAt(nodes, i);
      if (container === 'keep') continue;
      if (container) {
        found.push(container);
        continue;
      }
      if (walk(n.children)) return true;
    }
    return false;
  };
  walk(doc.children);
  if (!found.length) return undefined;
  const quotes = found.map((nodes) => DomUtils.getOuterHTML(nodes));
  for (const nodes of found) {
    DomUtils.replaceElement(nodes[0]!, new Element('p', {}, [new Text(QUOTE_MARK)]));
    for (const n of nodes.slice(1)) DomUtils.removeElement(n);
  }
  return { answer: DomUtils.getOuterHTML(doc), quotes };
}
