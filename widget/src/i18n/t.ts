import type { Strings } from './en.js';

// One file per locale, loaded with the panel: a customer downloads one table, not five.
const TABLES: Record<string, () => Promise<Strings>> = {
  en: () => import('./en.js').then((m) => m.en),
  de: () => import('./de.js').then((m) => m.de),
  fr: () => import('./fr.js').then((m) => m.fr),
  es: () => import('./es.js').then((m) => m.es),
  ar: () => import('./ar.js').then((m) => m.ar),
};

/** The table for a locale tag: exact ("de"), else its language ("de-AT" → "de"), else English. */
export function localeOf(tag: string): string {
  const lower = tag.toLowerCase();
  return TABLES[lower] ? lower : TABLES[lower.split('-')[0]!] ? lower.split('-')[0]! : 'en';
}

export const loadStrings = (tag: string): Promise<Strings> => TABLES[localeOf(tag)]!();

/** Languages written right to left, of those we have tables for. */
export const isRtl = (tag: string) => localeOf(tag) === 'ar';

/** Fills {name} placeholders. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
