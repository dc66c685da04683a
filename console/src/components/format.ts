import type { Locale } from '../i18n/t.js';

const dateTimes = new Map<string, Intl.DateTimeFormat>();
const fmt = (locale: Locale, opts: Intl.DateTimeFormatOptions) => {
  const key = locale + JSON.stringify(opts);
  let f = dateTimes.get(key);
  if (!f) dateTimes.set(key, (f = new Intl.DateTimeFormat(locale, opts)));
  return f;
};

/** "12 Mar, 14:05" (this year) or "12 Mar 2025, 14:05". */
export function dateTime(iso: string, locale: Locale) {
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return fmt(locale, {
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  }).format(d);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const relatives = new Map<string, Intl.RelativeTimeFormat>();

/** "3 hours ago", "in 20 minutes", "now". */
export function relative(iso: string, locale: Locale, now = Date.now()) {
  let rtf = relatives.get(locale);
  if (!rtf) relatives.set(locale, (rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' })));
  const seconds = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(0, 'minute');
}

/** 1234 -> "1.2 KB" (decimal units, as file managers show them). */
export function bytes(n: number, locale: Locale) {
  const units = ['B', 'KB', 'MB', 'GB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: i ? 1 : 0 }).format(v)} ${units[i]}`;
}

/** Fills {{name}}, {{subject}}, {{ticket_id}} and {{number}} as the server does for macros (mail/templates.ts). */
export const fillPlaceholders = (text: string, t: { name: string; subject: string; id: string; number: number }) =>
  text.replace(/\{\{\s*(name|subject|ticket_id|number)\s*\}\}/g, (_, key: string) =>
    key === 'name' ? t.name : key === 'subject' ? t.subject : key === 'number' ? `#${t.number}` : t.id,
  );
