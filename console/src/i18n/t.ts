import { de } from './de.js';
import { en, type Strings } from './en.js';

export const LOCALES = { en, de } as const;
export type Locale = keyof typeof LOCALES;
/** Each language by its own name, as the pickers offer it. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch' };
export type { Strings };

export const isLocale = (l: unknown): l is Locale => typeof l === 'string' && l in LOCALES;

/** The first supported language of a list like navigator.languages ("de-AT" counts as "de"). */
export const pickLocale = (wanted: readonly (string | null | undefined)[]): Locale => {
  for (const w of wanted) {
    const base = w?.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
};

/** Fills {name} placeholders. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
