import { describe, expect, it } from 'vitest';
import { cutToBytes, sanitizeFileName } from './file-name.js';

const bytes = (s: string) => Buffer.byteLength(s);
// A string survives a UTF-8 round trip only if no surrogate pair was split.
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s && !/\p{Cs}/u.test(s);

describe('sanitizeFileName', () => {
  it('keeps a name of exactly 255 bytes and cuts one of 256 to 255, keeping the extension', () => {
    const exact = `${'a'.repeat(251)}.txt`;
    expect(bytes(exact)).toBe(255);
    expect(sanitizeFileName(exact)).toBe(exact);
    const over = `${'a'.repeat(252)}.txt`;
    expect(sanitizeFileName(over)).toBe(exact);
  });

  it('cuts before a two-byte character that would straddle the limit', () => {
    // 'a' + 127 × 'é' (2 bytes) + '.txt' = 259 bytes; 251 bytes of stem hold 'a' and 125 'é'.
    const name = sanitizeFileName(`a${'é'.repeat(127)}.txt`);
    expect(name).toBe(`a${'é'.repeat(125)}.txt`);
    expect(bytes(name)).toBe(255);
    expect(name).not.toContain('\ufffd');
  });

  it('never splits a surrogate pair, an accent from its letter or an emoji sequence', () => {
    for (const unit of ['😀', 'e\u0301', '👩‍👩‍👧', '🇩🇪', '日']) {
      for (let pad = 0; pad < 4; pad++) {
        const name = sanitizeFileName(`${'a'.repeat(pad)}${unit.repeat(200)}.png`);
        expect(bytes(name), unit).toBeLessThanOrEqual(255);
        expect(wellFormed(name), unit).toBe(true);
        expect(name.endsWith('.png'), unit).toBe(true);
        // What is left of the stem is whole units only.
        expect(
          name
            .slice(pad, -4)
            .split(unit)
            .every((part) => part === ''),
          unit,
        ).toBe(true);
        expect(bytes(name), unit).toBeGreaterThan(255 - bytes(unit));
      }
    }
  });

  it('keeps the extension of a 16,000-character name and drops any path', () => {
    const name = sanitizeFileName(`${'x'.repeat(5000)}/${'a'.repeat(16_000)}.png`);
    expect(bytes(name)).toBe(255);
    expect(name).toBe(`${'a'.repeat(251)}.png`);
    // An "extension" over 10 characters is part of the stem and is cut like it.
    const noExt = sanitizeFileName(`${'a'.repeat(300)}.verylongextension`);
    expect(bytes(noExt)).toBe(255);
    expect(noExt).toBe('a'.repeat(255));
  });

  it('cuts a cluster of thousands of combining marks between code points rather than losing the stem', () => {
    const name = sanitizeFileName(`e${'\u0301'.repeat(16_000)}.png`);
    expect(name.startsWith('e\u0301')).toBe(true);
    expect(name.endsWith('.png')).toBe(true);
    expect(bytes(name)).toBeLessThanOrEqual(255);
  });
});

describe('cutToBytes', () => {
  it('returns the longest whole-character start that fits', () => {
    expect(cutToBytes('ab😀', 3)).toBe('ab');
    expect(cutToBytes('ab😀', 6)).toBe('ab😀');
    expect(cutToBytes('ae\u0301', 2)).toBe('a');
    expect(cutToBytes('short', 255)).toBe('short');
  });
});
