/** A counted phrase: `other` always, the other categories of Intl.PluralRules where the language has them. */
export type Plural = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

/** The form of `forms` for `n` in `locale`, with `{n}` filled in as the locale writes numbers. */
export function plural(locale: string, forms: Plural, n: number): string {
  const form = forms[new Intl.PluralRules(locale).select(n)] ?? forms.other;
  return form.replace('{n}', n.toLocaleString(locale));
}
