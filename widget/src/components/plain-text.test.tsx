import { render } from 'preact';
import { bestTime, repeatTo } from '../test-support/timing.js';
import { describe, expect, it } from 'vitest';
import { PlainText } from './plain-text.js';

function html(source: string): string {
  const el = document.createElement('div');
  render(<PlainText source={source} />, el);
  const out = el.innerHTML;
  render(null, el);
  return out;
}
const a = (href: string, text = href) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;

describe('PlainText (a customer message)', () => {
  it('shows the words as written: no Markdown, no HTML, line breaks and spaces kept', () => {
    const source = [
      'Hi, my code SPRING_SALE_2026 was refused.',
      '**Not bold**, *not italic*, 2 * 3 * 4, \\*kept\\*, # not a heading',
      '- not a list',
      '<b>not bold</b> <img src=x onerror="alert(1)"> [not](a link)',
      '',
      'Jane  Doe',
      '12 Harbour Road',
      'Bristol BS1 5TT',
    ].join('\n');
    const escaped = source.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    expect(html(source)).toBe(escaped);
  });

  it('makes links of web and mail addresses, without the punctuation around them', () => {
    const url = 'https://shop.example/orders/track_my_order?id=ab_12&lang=en';
    const amp = url.replace('&', '&amp;');
    expect(html(`See ${url}.`)).toBe(`See ${a(amp)}.`);
    expect(html(`(see https://en.example/wiki/Foo_(bar)), ok?`)).toBe(
      `(see ${a('https://en.example/wiki/Foo_(bar)')}), ok?`,
    );
    expect(html('<https://shop.example/a_b>')).toBe(`&lt;${a('https://shop.example/a_b')}&gt;`);
    expect(html('Mail jane.doe+shop@mail.example, or www.shop.example/help!')).toBe(
      `Mail ${a('mailto:jane.doe+shop@mail.example', 'jane.doe+shop@mail.example')}, or ${a('http://www.shop.example/help', 'www.shop.example/help')}!`,
    );
    expect(html('line one\nhttp://a.example/x\nline three')).toBe(`line one\n${a('http://a.example/x')}\nline three`);
  });

  it('links nothing but http(s) and mailto, and no half addresses', () => {
    for (const source of [
      'javascript:alert(1)',
      'data:text/html,x',
      '//evil.example',
      'http://',
      'www.',
      'a@b',
      '@home',
      'x@.example',
    ])
      expect(html(source), source).not.toContain('<a');
  });

  it('takes time in proportion to the length of the text, whatever its shape', () => {
    // Each shape at n and 4n characters: linear work takes about 4 times as long, quadratic 16 times.
    const n = 25_000;
    for (const shape of [
      'a',
      '@',
      'a@',
      'a@b',
      'http://(',
      'http://a)',
      'www.',
      '.',
      'a.',
      'a@b.',
      '@https://a',
      'a ',
    ]) {
      // Measured up to three times: a loaded machine can slow one pair's large run (a quadratic shape
      // fails all three, its large run being 16 times the small one).
      const times: string[] = [];
      const linear = () => {
        const small = bestTime(() => PlainText({ source: repeatTo(shape, n) }));
        const large = bestTime(() => PlainText({ source: repeatTo(shape, 4 * n) }));
        times.push(`${small.toFixed(1)} / ${large.toFixed(1)} ms`);
        return large < 8 * small + 50;
      };
      expect(linear() || linear() || linear(), `${JSON.stringify(shape)}: ${times.join(', ')}`).toBe(true);
    }
  });
});
