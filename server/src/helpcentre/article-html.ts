import MarkdownIt from 'markdown-it';

// A KB article's Markdown as HTML for the help centre, by the rules of the widget's renderer
// (widget/src/components/markdown.tsx): CommonMark with GFM's strikethrough, raw HTML shown as text,
// only http(s) and mailto links (any other keeps its text), an image shown as a link to the picture,
// a single newline a line break. Bare web and mail addresses become links through markdown-it's
// linkify (the widget has its own scanner for customers' messages; the two agree on http(s)://, www.
// and mail addresses). Every piece of text and every attribute is escaped here: nothing of the
// article reaches the page unescaped.
const parser = new MarkdownIt('commonmark', { html: false, linkify: true }).enable(['strikethrough', 'linkify']);
parser.linkify.set({ fuzzyLink: false, fuzzyIP: false }).add('ftp:', null).add('//', null);
// Every destination is parsed as a link; which ones may be followed is decided below.
parser.validateLink = () => true;

const SAFE = /^(https?:|mailto:)/i;

type Token = ReturnType<typeof parser.parse>[number];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text and attribute values for HTML: the five characters that could end or start markup. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const attr = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined ? '' : ` ${name}="${escapeHtml(String(value))}"`;

/** A link that leaves the help centre: it opens in place (a page, not a panel) and tells the target nothing. */
const anchor = (href: string, title: string | number | null, inner: string) =>
  `<a${attr('href', href)}${attr('title', title)} rel="noopener noreferrer nofollow">${inner}</a>`;

function element(token: Token, inner: string): string {
  switch (token.type) {
    case 'paragraph_open':
      return token.hidden ? inner : `<p>${inner}</p>\n`;
    case 'heading_open': {
      // The page's title is the h1: the article's own headings start at h2.
      const level = Math.min(Number(token.tag.slice(1)) + 1, 6);
      return `<h${level}>${inner}</h${level}>\n`;
    }
    case 'ordered_list_open':
      return `<ol${attr('start', token.attrGet('start'))}>\n${inner}</ol>\n`;
    case 'link_open': {
      const href = String(token.attrGet('href') ?? '');
      return SAFE.test(href) ? anchor(href, token.attrGet('title'), inner) : inner;
    }
    case 'image': {
      const alt = escapeHtml((token.children ?? []).map((c) => c.content).join(''));
      const src = String(token.attrGet('src') ?? '');
      return SAFE.test(src) ? anchor(src, token.attrGet('title'), alt || escapeHtml(src)) : alt;
    }
    case 'fence':
    case 'code_block': {
      const lang = token.info.trim().split(/\s+/)[0];
      const cls = lang ? `language-${parser.utils.unescapeAll(lang)}` : null;
      return `<pre><code${attr('class', cls)}>${escapeHtml(token.content)}</code></pre>\n`;
    }
    case 'code_inline':
      return `<code>${escapeHtml(token.content)}</code>`;
    case 's_open':
      return `<del>${inner}</del>`;
    case 'softbreak':
    case 'hardbreak':
      return '<br>\n';
    case 'hr':
      return '<hr>\n';
    case 'text':
    case 'html_block':
    case 'html_inline':
      return escapeHtml(token.content);
    default:
      // The containers whose tag is all there is to them: blockquote, ul, li, em, strong.
      return /^(blockquote|ul|li|em|strong)$/.test(token.tag) ? `<${token.tag}>${inner}</${token.tag}>` : inner;
  }
}

/** An article's body (Markdown) as HTML, every part of it escaped. */
export function articleHtml(source: string): string {
  const stack: { token: Token | null; parts: string[] }[] = [{ token: null, parts: [] }];
  const walk = (list: Token[]) => {
    for (const token of list) {
      if (token.type === 'inline') walk(token.children ?? []);
      else if (token.nesting === 1) stack.push({ token, parts: [] });
      else if (token.nesting === -1) {
        const frame = stack.pop()!;
        stack.at(-1)!.parts.push(element(frame.token!, frame.parts.join('')));
      } else stack.at(-1)!.parts.push(element(token, ''));
    }
  };
  walk(parser.parse(source, {}));
  return stack[0]!.parts.join('');
}
