import { render } from 'preact';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.js';

function html(source: string): string {
  const el = document.createElement('div');
  render(<Markdown source={source} />, el);
  const out = el.innerHTML;
  render(null, el);
  return out;
}

describe('Markdown', () => {
  it('renders the supported subset as before', () => {
    const source = [
      '# Refunds',
      '## How *long*',
      'Open your order and choose **Refund**, then `confirm`.',
      'Read _this_ and [the policy](https://shop.example/policy) or [mail us](mailto:help@shop.example).',
      '',
      '- one',
      '- **two**',
      '',
      '1. first',
      '2. second',
      '',
      '```',
      'let x = "<b>";',
      '```',
      '<img src=x onerror="alert(1)">',
    ].join('\n');
    const a = (href: string, text: string) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;
    expect(html(source)).toBe(
      '<div class="article"><h3>Refunds</h3><h4>How <em>long</em></h4>' +
        '<p>Open your order and choose <strong>Refund</strong>, then <code>confirm</code>. Read <em>this</em> and ' +
        `${a('https://shop.example/policy', 'the policy')} or ${a('mailto:help@shop.example', 'mail us')}.</p>` +
        '<ul><li>one</li><li><strong>two</strong></li></ul><ol><li>first</li><li>second</li></ol>' +
        '<pre><code>let x = "&lt;b&gt;";</code></pre><p>&lt;img src=x onerror="alert(1)"&gt;</p></div>',
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
      const out = html(`[click](${href})`);
      expect(out, href).not.toContain('<a');
      expect(out, href).toContain('click');
    }
  });

  // Timings are compared with each other in the same run, never with a fixed number of milliseconds.
  const best = (work: () => unknown) => {
    let t = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      work();
      t = Math.min(t, performance.now() - started);
    }
    return t;
  };
  const repeat = (shape: string, length: number) => shape.repeat(Math.ceil(length / shape.length));

  it('tokenises in time proportional to the length of the text, whatever marks it leaves unclosed', () => {
    // The attack is a mark whose try fails after scanning far ahead, repeated: each shape at n and at 4n
    // characters (4n is the longest article, 100,000). Linear work takes about 4 times as long,
    // quadratic work 16 times. Markdown() itself is the tokeniser: it returns elements without touching
    // the DOM. (Shapes that close, like `*a*` repeated, make an element per few characters; their
    // timing is the allocator's, not the tokeniser's.)
    const n = 25_000;
    const shapes = ['[a](', '[', '[](', '[a](b', '![x](', '](', '`', '*', '**', '_', 'a ', '# [a]('];
    for (const shape of shapes) {
      const small = best(() => Markdown({ source: repeat(shape, n) }));
      const large = best(() => Markdown({ source: repeat(shape, 4 * n) }));
      expect(large, JSON.stringify(shape)).toBeLessThan(8 * small + 50);
    }
  });

  it('renders a long article of unclosed links as fast as plain text of the same length', () => {
    const length = 100_000;
    const plain = best(() => html(repeat('word ', length)));
    for (const shape of ['[a](', '[', '[](', '[a](b']) {
      const hostile = best(() => html(repeat(shape, length)));
      expect(hostile, JSON.stringify(shape)).toBeLessThan(10 * plain + 50);
    }
    expect(html('[a]('.repeat(3))).toBe('<div class="article"><p>[a]([a]([a](</p></div>');
  });
});
