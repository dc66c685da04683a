import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { render } from 'preact';
import { expect, it } from 'vitest';
import { Markdown } from './markdown.js';

// The CommonMark specification's own examples (the commonmark-spec package, spec 0.31.2), rendered by
// markdown.tsx to the DOM and compared with the specification's HTML, both normalised the same way.
// The expected HTML is first adjusted for what markdown.tsx does on purpose (see its comment): headings
// two levels down, links only to http(s)/mailto (others leave their text), images as links, links
// opening in a new tab. Raw HTML is not supported (shown as text), so its two sections are left out;
// GFM's literal autolinks make a few examples' bare addresses links where CommonMark leaves text.
const spec = readFileSync(createRequire(import.meta.url).resolve('commonmark-spec/spec.txt'), 'utf8');
const examples = [
  ...spec
    .replace(/^<!-- END TESTS -->[\s\S]*/m, '')
    .matchAll(/^`{32} example\n([\s\S]*?)^\.\n([\s\S]*?)^`{32}$|^#{1,6} *(.*)$/gm),
].reduce<{ section: string; list: { section: string; number: number; markdown: string; html: string }[] }>(
  (acc, m) => {
    if (m[3] !== undefined) acc.section = m[3];
    else acc.list.push({ section: acc.section, number: acc.list.length + 1, markdown: m[1]!, html: m[2]! });
    return acc;
  },
  { section: '', list: [] },
).list;
const UNSUPPORTED = new Set(['HTML blocks', 'Raw HTML']);

// Measured with this renderer (markdown-it 15): a section's pass rate (%) may not fall below it. Every
// example that fails is one of the two deviations above: raw HTML in the example (21 31 201 308 309 344
// 475-477 491 494 524 536 642 643), or a bare address that GFM makes a link (602 606 608 611 612).
// SPEC_DIFF=1 prints each failure.
const FLOOR: Record<string, number> = {
  Tabs: 100,
  'Backslash escapes': 92.3,
  'Entity and numeric character references': 94.1,
  Precedence: 100,
  'Thematic breaks': 100,
  'ATX headings': 100,
  'Setext headings': 100,
  'Indented code blocks': 100,
  'Fenced code blocks': 100,
  'Link reference definitions': 96.2,
  Paragraphs: 100,
  'Blank lines': 100,
  'Block quotes': 100,
  'List items': 100,
  Lists: 92.3,
  Inlines: 100,
  'Code spans': 95.4,
  'Emphasis and strong emphasis': 97.7,
  Links: 95.5,
  Images: 100,
  Autolinks: 73.6,
  'Hard line breaks': 86.6,
  'Soft line breaks': 100,
  'Textual content': 100,
};

const SAFE = /^(https?:|mailto:)/i;
const BLOCK = /^(P|H[1-6]|UL|OL|LI|BLOCKQUOTE|PRE|HR|DIV)$/;

/** The spec's HTML as markdown.tsx is meant to render it. */
function adjust(root: Element) {
  for (const h of [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')]) {
    const to = document.createElement(`h${Math.min(Number(h.tagName[1]) + 2, 6)}`);
    to.append(...h.childNodes);
    h.replaceWith(to);
  }
  for (const img of [...root.querySelectorAll('img')]) {
    const src = img.getAttribute('src') ?? '';
    const alt = img.getAttribute('alt') || src;
    if (!SAFE.test(src)) img.replaceWith(img.getAttribute('alt') ?? '');
    else {
      const a = document.createElement('a');
      a.setAttribute('href', src);
      if (img.hasAttribute('title')) a.setAttribute('title', img.getAttribute('title')!);
      a.textContent = alt;
      img.replaceWith(a);
    }
  }
  for (const a of [...root.querySelectorAll('a')])
    if (!SAFE.test(a.getAttribute('href') ?? '')) a.replaceWith(...a.childNodes);
}

/** Elements, sorted attributes and text, with the whitespace HTML does not show taken out. */
function canonical(node: Node, pre = false): string {
  if (node.nodeType === 3) return pre ? node.textContent! : node.textContent!.replace(/\s+/g, ' ');
  if (node.nodeType !== 1) return '';
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  const inPre = pre || tag === 'pre';
  const attrs = [...el.attributes]
    .filter((a) => a.name !== 'target' && a.name !== 'rel')
    .map((a) => ` ${a.name}="${a.value}"`)
    .sort()
    .join('');
  let inner = [...el.childNodes].map((c) => canonical(c, inPre)).join('');
  if (!inPre && BLOCK.test(el.tagName))
    inner = inner.replace(/^ | $/g, '').replace(/ ?(<\/?(p|h\d|ul|ol|li|blockquote|pre|hr|br)[^>]*>) ?/g, '$1');
  return `<${tag}${attrs}>${inner}</${tag}>`;
}

function actual(markdown: string): string {
  const el = document.createElement('div');
  render(<Markdown source={markdown.replaceAll('→', '\t')} breaks={false} />, el);
  const out = canonical(el.firstElementChild!).replace(/^<div class="article">/, '<div>');
  render(null, el);
  return out;
}

function expected(html: string): string {
  const el = document.createElement('div');
  el.innerHTML = html.replaceAll('→', '\t');
  adjust(el);
  return canonical(el);
}

it('renders the CommonMark specification examples of the sections it supports', () => {
  const sections = new Map<string, { pass: number; total: number; failed: number[] }>();
  for (const ex of examples) {
    if (UNSUPPORTED.has(ex.section)) continue;
    const s = sections.get(ex.section) ?? { pass: 0, total: 0, failed: [] };
    sections.set(ex.section, s);
    s.total++;
    if (actual(ex.markdown) === expected(ex.html)) s.pass++;
    else {
      s.failed.push(ex.number);
      if (process.env.SPEC_DIFF)
        console.log(
          ex.number,
          JSON.stringify(ex.markdown),
          '\n  got  ',
          actual(ex.markdown),
          '\n  want ',
          expected(ex.html),
        );
    }
  }
  const rates: Record<string, number> = {};
  let pass = 0;
  let total = 0;
  for (const [name, s] of sections) {
    rates[name] = Math.floor((1000 * s.pass) / s.total) / 10;
    pass += s.pass;
    total += s.total;
    console.log(
      `${name.padEnd(42)} ${String(s.pass).padStart(3)}/${String(s.total).padEnd(3)} ${rates[name]}%${s.failed.length ? `  failing: ${s.failed.join(' ')}` : ''}`,
    );
  }
  console.log(`${'all supported sections'.padEnd(42)} ${pass}/${total} ${((100 * pass) / total).toFixed(1)}%`);
  for (const [name, floor] of Object.entries(FLOOR)) expect(rates[name], name).toBeGreaterThanOrEqual(floor);
  expect(Object.keys(FLOOR).sort()).toEqual([...sections.keys()].sort());
});
