import type { WidgetOptions } from './types.js';

/**
 * Reads the script tag's data-* attributes. A secret key is refused: it would give anyone who views
 * the page's source full access to the support desk.
 */
export function readOptions(script: { dataset: DOMStringMap; src: string }): WidgetOptions | { error: string } {
  const d = script.dataset;
  const key = d.key ?? '';
  if (key.startsWith('sk_')) {
    return { error: 'data-key holds a secret key. Use your public key (pk_…) here and revoke this secret key now.' };
  }
  if (!/^pk_(live|test)_[A-Za-z0-9]{24,}$/.test(key))
    return { error: 'data-key must be your public key (pk_live_… or pk_test_…).' };
  const api = (d.api ?? `${new URL(script.src).origin}/v1`).replace(/\/+$/, '');
  const options: WidgetOptions = { key, api };
  if (d.open === 'true') options.open = true;
  if (d.link) options.link = d.link;
  if (d.locale) options.locale = d.locale;
  if (d.position === 'bottom-left' || d.position === 'bottom-right') options.position = d.position;
  if (d.design)
    try {
      options.design = JSON.parse(d.design) as WidgetOptions['design'];
    } catch {
      /* not JSON: the portal's design as it is */
    }
  return options;
}
