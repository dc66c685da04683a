/** The languages customers are answered in (the widget's tables): API error messages and mails. */
export const CUSTOMER_LOCALES = ['en', 'de', 'fr', 'es', 'ar'] as const;
export type CustomerLocale = (typeof CUSTOMER_LOCALES)[number];

const isLocale = (tag: string): tag is CustomerLocale => (CUSTOMER_LOCALES as readonly string[]).includes(tag);

/**
 * The best of our languages for an Accept-Language header (`de-AT,de;q=0.9,en;q=0.5`): by weight, a
 * regional tag counting as its language; undefined when none fits (the caller keeps English).
 */
export function negotiate(header: string | undefined): CustomerLocale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.trim().toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.map((x) => x.lang).find(isLocale);
}
