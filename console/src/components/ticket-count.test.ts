import { describe, expect, it } from 'vitest';
import { LOCALES } from '../i18n/t.js';
import { ticketCount } from './ticket-count.js';

describe("the list's count", () => {
  it('says "500+" when a search counted only its newest matches, in every language', () => {
    expect(ticketCount(LOCALES.en, 500, true)).toBe('500+ tickets');
    expect(ticketCount(LOCALES.de, 500, true)).toBe('500+ Anfragen');
    for (const t of Object.values(LOCALES)) {
      expect(ticketCount(t, 500, true)).toContain('500+');
      expect(ticketCount(t, 500, false)).not.toContain('+');
      expect(ticketCount(t, 1, false)).toBe(t.ticketCountOne);
    }
  });
});
