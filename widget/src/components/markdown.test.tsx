import { render } from 'preact';
import { bestTime, repeatTo } from '../test-support/timing.js';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.js';

function html(source: string): string {
  const el = document.createElement('div');
  render(<Markdown source={source} />, el);
  const out = el.innerHTML;
  render(null, el);
  return out;
}

const a = (href: string, text: string) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;

describe('Markdown', () => {
  it('renders CommonMark with strikethrough, bare links and a break at each newline', () => {
    const source = [
      '# Refunds',
      '## How *long*',
      'Open your order and choose **Refund**, then `confirm`.',
      'Read _this_ and [the policy](https://shop.example/policy) or [mail us](mailto:help@shop.example).',
      '',
      '- one',
      '- **two**',
      '  - nested',
      '',
      '3. third',
      '4. fourth',
      '',
      '> ~~old~~ new',
      '',
      '```js',
      'let x = "<b>";',
      '```',
      '<img src=x onerror="alert(1)">',
    ].join('\n');
    expect(html(source)).toBe(
      '<div class="article"><h3>Refunds</h3><h4>How <em>long</em></h4>' +
        '<p>Open your order and choose <strong>Refund</strong>, then <code>confirm</code>.<br>Read <em>this</em> and ' +
        `${a('https://shop.example/policy', 'the policy')} or ${a('mailto:help@shop.example', 'mail us')}.</p>` +
        '<ul><li>one</li><li><strong>two</strong><ul><li>nested</li></ul></li></ul><ol start="3"><li>third</li><li>fourth</li></ol>' +
        '<blockquote><p><del>old</del> new</p></blockquote>' +
        '<pre><code class="language-js">let x = "&lt;b&gt;";\n</code></pre><p>&lt;img src=x onerror="alert(1)"&gt;</p></div>',
    );
  });

  it('shows the support cases exactly as written', () => {
    const url = 'https://shop.example/orders/track_my_order?id=ab_12&lang=en';
    const cases: [string, string][] = [
      ['Use voucher SPRING_SALE_2026 at checkout.', '<p>Use voucher SPRING_SALE_2026 at checkout.</p>'],
      [`Track it here: ${url}.`, `<p>Track it here: ${a(url.replace('&', '&amp;'), url.replace('&', '&amp;'))}.</p>`],
      [
        'Ticketing Ltd\nAttn: Returns\n12 Harbour Road\nBristol BS1 5TT\nUnited Kingdom',
        '<p>Ticketing Ltd<br>Attn: Returns<br>12 Harbour Road<br>Bristol BS1 5TT<br>United Kingdom</p>',
      ],
      ['2 * 3 * 4 = 24', '<p>2 * 3 * 4 = 24</p>'],
      ['A literal \\*star\\*', '<p>A literal *star*</p>'],
      ['<https://shop.example/a_b>', `<p>${a('https://shop.example/a_b', 'https://shop.example/a_b')}</p>`],
      [
        'Write to help@shop.example or see www.shop.example',
        `<p>Write to ${a('mailto:help@shop.example', 'help@shop.example')} or see ${a('http://www.shop.example', 'www.shop.example')}</p>`,
      ],
      ['- a\n  - b\n    - c', '<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li></ul>'],
      ['5~10 days, ~~not~~ now', '<p>5~10 days, <del>not</del> now</p>'],
    ];
    for (const [source, out] of cases) expect(html(source), source).toBe(`<div class="article">${out}</div>`);
  });

  it('shows raw HTML as text', () => {
    expect(html('<b>bold</b>\n\n<div>\n*still Markdown*\n</div>')).toBe(
      '<div class="article"><p>&lt;b&gt;bold&lt;/b&gt;</p><p>&lt;div&gt;<br><em>still Markdown</em><br>&lt;/div&gt;</p></div>',
    );
  });

  it('makes links only of http(s) and mailto addresses', () => {
    for (const href of [
      'javascript:alert(1)',
      'javascript:alert`1`',
      'data:text/html,x',
      'vbscript:x',
      '//evil.example',
    ]) {
      for (const source of [`[click](${href})`, `[click][r]\n\n[r]: ${href}`, `![click](${href})`, `<${href}>`]) {
        const out = html(source);
        expect(out, source).not.toContain('<a');
        expect(out, source).not.toContain('<img');
      }
      expect(html(`[click](${href})`)).toBe('<div class="article"><p>click</p></div>');
    }
  });

  // Timings are compared with each other in the same run, never with a fixed number of milliseconds.

  it('tokenises in time proportional to the length of the text, whatever marks it leaves unclosed', () => {
    // The attack is a mark whose try fails after scanning far ahead, repeated: each shape at n and at 4n
    // characters (4n is the longest article, 100,000). Linear work takes about 4 times as long,
    // quadratic work 16 times. Markdown() itself is the tokeniser: it returns elements without touching
    // the DOM. (Shapes that close, like `*a*` repeated, make an element per few characters; their
    // timing is the allocator's, not the tokeniser's.)
    const n = 25_000;
    const shapes = ['[a](', '[', '[](', '[a](b', '![x](', '](', '`', '*', '**', '_', 'a ', '# [a]('];
    // A loaded machine only ever slows a run down, so a shape gets three tries; quadratic work fails
    // every one of them.
    for (const shape of shapes) {
      const tries: string[] = [];
      for (let i = 0; i < 3; i++) {
        const small = bestTime(() => Markdown({ source: repeatTo(shape, n) }));
        const large = bestTime(() => Markdown({ source: repeatTo(shape, 4 * n) }));
        if (large < 8 * small + 50) break;
        tries.push(`${small.toFixed(0)} ms -> ${large.toFixed(0)} ms`);
      }
      expect(tries.length, `${JSON.stringify(shape)}: ${tries.join(', ')}`).toBeLessThan(3);
    }
  });

  it('renders a long article of unclosed links as fast as plain text of the same length', () => {
    const length = 100_000;
    // Measured side by side, with three tries a shape (a loaded machine only ever slows one run down;
    // quadratic work, seconds here, fails every try).
    for (const shape of ['[a](', '[', '[](', '[a](b']) {
      const tries: string[] = [];
      for (let i = 0; i < 3; i++) {
        const plain = bestTime(() => html(repeatTo('word ', length)));
        const hostile = bestTime(() => html(repeatTo(shape, length)));
        if (hostile < 10 * plain + 50) break;
        tries.push(`${plain.toFixed(0)} ms plain, ${hostile.toFixed(0)} ms`);
      }
      expect(tries.length, `${JSON.stringify(shape)}: ${tries.join('; ')}`).toBeLessThan(3);
    }
    expect(html('[a]('.repeat(3))).toBe('<div class="article"><p>[a]([a]([a](</p></div>');
  });
});
