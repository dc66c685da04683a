import { de } from './de.js';
import { en, type Strings } from './en.js';

const TABLES: Record<string, Strings> = { en, de };
export type Locale = keyof typeof TABLES;

export const strings = (locale: string): Strings => TABLES[locale] ?? en;

/** Fills {name} placeholders. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
