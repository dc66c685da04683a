import { describe, expect, it } from 'vitest';
import { avatarColor, initials } from './avatar.js';

/** WCAG's contrast of white on an `hsl(h s% l%)` colour. */
function contrastWithWhite(hsl: string): number {
  const [h, s, l] = hsl.match(/[\d.]+/g)!.map(Number) as [number, number, number];
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const lum = 0.2126 * lin(f(0)) + 0.7152 * lin(f(8)) + 0.0722 * lin(f(4));
  return 1.05 / (lum + 0.05);
}

describe('initials avatars', () => {
  it('take the colour from the id, readable with white initials on every hue', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `agt_${i.toString(36).padStart(20, 'x')}`);
    const colours = new Set(ids.map(avatarColor));
    expect(colours.size).toBeGreaterThan(200); // spread over the wheel, not a handful
    expect(avatarColor(ids[7]!)).toBe(avatarColor(ids[7]!)); // stable
    let worst = Infinity;
    for (let h = 0; h < 360; h++) worst = Math.min(worst, contrastWithWhite(`hsl(${h} 60% 28%)`));
    for (const c of colours) expect(contrastWithWhite(c)).toBeGreaterThanOrEqual(worst);
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });

  it('use the first and the last word of the name', () => {
    expect(initials('Grace B. Hopper')).toBe('GH');
    expect(initials('ada')).toBe('A');
    expect(initials('  Özlem   Türeci ')).toBe('ÖT');
    expect(initials('')).toBe('?');
  });
});
