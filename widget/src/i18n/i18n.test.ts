import { describe, expect, it } from 'vitest';
import type { Strings } from './en.js';
import { plural } from './plural.js';
import { isRtl, loadStrings, localeOf } from './t.js';

const LOCALES = ['en', 'de', 'fr', 'es', 'ar'];

describe('the string tables', () => {
  it('are chosen by language, with English for any other', () => {
    expect(['de', 'de-AT', 'DE-ch', 'fr-CA', 'es-419', 'ar-EG', 'pt', 'xx-YY'].map(localeOf)).toEqual([
      'de',
      'de',
      'de',
      'fr',
      'es',
      'ar',
      'en',
      'en',
    ]);
    expect(LOCALES.filter(isRtl)).toEqual(['ar']);
  });

  for (const locale of LOCALES)
    it(`${locale}: every string is there, placeholders as in English, and every plural form the language has`, async () => {
      const [en, table] = await Promise.all([loadStrings('en'), loadStrings(locale)]);
      const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      for (const key of Object.keys(en) as (keyof Strings)[]) {
        const mine = table[key];
        const theirs = en[key];
        expect(mine, key).toBeTruthy();
        if (typeof theirs === 'string') {
          expect(typeof mine, key).toBe('string');
          expect(placeholders(mine as string), key).toEqual(placeholders(theirs));
        } else if ('other' in theirs && typeof theirs.other === 'string' && key !== 'statuses') {
          for (const c of categories) expect((mine as Record<string, string>)[c] ?? '', `${key}.${c}`).not.toBe('');
        } else {
          expect(Object.keys(mine).sort(), key).toEqual(Object.keys(theirs).sort());
        }
      }
    });

  it('count in the language: Arabic has six forms, German two', async () => {
    const ar = await loadStrings('ar');
    const n = (x: number) => x.toLocaleString('ar'); // the digits ICU uses for Arabic
    expect([0, 1, 2, 3, 11, 100].map((x) => plural('ar', ar.files, x))).toEqual([
      'لا ملفات',
      'ملف واحد',
      'ملفان',
      `${n(3)} ملفات`,
      `${n(11)} ملفًا`,
      `${n(100)} ملف`,
    ]);
    const de = await loadStrings('de');
    expect([1, 2].map((n) => plural('de', de.files, n))).toEqual(['1 Datei', '2 Dateien']);
  });
});
