import MarkdownIt from 'markdown-it';
import type { ComponentChildren } from 'preact';
import { h } from 'preact';
import { linkify } from './plain-text.js';

// Agents' Markdown (replies, notes, macros, signatures, KB articles): CommonMark with GFM's
// `~~strikethrough~~` and literal autolinks, parsed by markdown-it into tokens that are rendered here to
// elements, never to an HTML string. markdown-it was chosen over micromark (smaller, but 100,000
// characters of `[a](` took seconds) and marked (`*a` repeated took the square of the length): it
// follows the specification and is hardened against such input. What this renderer does on purpose:
// - Raw HTML is not a construct (`html: false`): `<b>` is text like any other.
// - Only http(s) and mailto addresses become links; any other (`javascript:`, relative) leaves the
//   link's text. An image shows as a link to the picture: a reply must not fetch anything by itself.
// - Bare `https://…`, `www.…` and mail addresses in text become links, by the same code as in a
//   customer's message (plain-text.tsx).
// - Headings start at h3: the panel and the console own the levels above.
// - A single newline is a line break (`breaks`), as in GitHub's comments: agents press Enter expecting
//   one (an address on five lines), and nobody writing a reply in a text box rewraps it by hand.
const parser = new MarkdownIt('commonmark', { html: false }).enable('strikethrough');
// Every destination is parsed as a link; which ones may be followed is decided below, where the link's
// text is kept either way (markdown-it's own check would show an unsafe link as its Markdown source).
parser.validateLink = () => true;

const SAFE = /^(https?:|mailto:)/i;

type Token = ReturnType<typeof parser.parse>[number];
type Frame = { token: Token | null; children: ComponentChildren[] };

function element(token: Token, children: ComponentChildren[], breaks: boolean): ComponentChildren {
  switch (token.type) {
    case 'paragraph_open':
      // A tight list's paragraphs are hidden: their text sits in the item itself.
      return token.hidden ? children : h('p', null, children);
    case 'heading_open':
      return h(`h${Math.min(Number(token.tag.slice(1)) + 2, 6)}`, null, children);
    case 'ordered_list_open': {
      const start = token.attrGet('start');
      return h('ol', { start: start ?? undefined }, children);
    }
    case 'link_open': {
      const href = String(token.attrGet('href') ?? '');
      return SAFE.test(href)
        ? h(
            'a',
            { href, title: token.attrGet('title') ?? undefined, target: '_blank', rel: 'noopener noreferrer' },
            children,
          )
        : children;
    }
    case 'image': {
      const alt = (token.children ?? []).map((c) => c.content).join('');
      const src = String(token.attrGet('src') ?? '');
      return SAFE.test(src)
        ? h(
            'a',
            { href: src, title: token.attrGet('title') ?? undefined, target: '_blank', rel: 'noopener noreferrer' },
            alt || src,
          )
        : alt;
    }
    case 'fence':
    case 'code_block': {
      const lang = token.info.trim().split(/\s+/)[0];
      return h(
        'pre',
        null,
        h('code', { class: lang ? `language-${parser.utils.unescapeAll(lang)}` : undefined }, token.content),
      );
    }
    case 'code_inline':
      return h('code', null, token.content);
    case 's_open':
      return h('del', null, children);
    case 'softbreak':
      return breaks ? h('br', null) : '\n';
    case 'hardbreak':
      return h('br', null);
    case 'hr':
      return h('hr', null);
    case 'text':
      return token.content;
    case 'html_block':
    case 'html_inline':
      return token.content;
    default:
      // The containers whose tag is all there is to them: blockquote, ul, li, em, strong.
      return /^(blockquote|ul|li|em|strong)$/.test(token.tag) ? h(token.tag, null, children) : children;
  }
}

/** The tokens, flat with open and close marks, as a tree of elements. */
function render(tokens: Token[], breaks: boolean): ComponentChildren[] {
  const stack: Frame[] = [{ token: null, children: [] }];
  let links = 0;
  const walk = (list: Token[]) => {
    for (const token of list) {
      if (token.type === 'inline') {
        walk(token.children ?? []);
      } else if (token.nesting === 1) {
        if (token.type === 'link_open') links++;
        stack.push({ token, children: [] });
      } else if (token.nesting === -1) {
        const frame = stack.pop()!;
        if (frame.token!.type === 'link_open') links--;
        stack.at(-1)!.children.push(element(frame.token!, frame.children, breaks));
      } else if (token.type === 'text' && !links) {
        // Text outside a link: its bare addresses become links (GFM's autolink literals).
        stack.at(-1)!.children.push(linkify(token.content));
      } else {
        stack.at(-1)!.children.push(element(token, [], breaks));
      }
    }
  };
  walk(tokens);
  return stack[0]!.children;
}

/**
 * Renders `source` as described above. `breaks={false}` renders a single newline as CommonMark does
 * (as a space): the specification's own examples are checked that way.
 */
export function Markdown({ source, breaks = true }: { source: string; breaks?: boolean }) {
  return <div class="article">{render(parser.parse(source, {}), breaks)}</div>;
}
