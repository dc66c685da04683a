import { effect, signal } from '@preact/signals';
import { isLocale, pickLocale, type Locale } from '../i18n/t.js';

export type Theme = 'auto' | 'light' | 'dark';
const PREFIX = 'ticketing:console:';

const read = (key: string) => {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
};
const write = (key: string, value: string | null) => {
  try {
    if (value === null) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, value);
  } catch {
    // Storage full or off (private windows): the preference lasts for this page only.
  }
};
export const storage = { read, write };

/** What this browser remembers for the agent: theme, language, desktop notifications. */
export function createPrefs() {
  const storedTheme = read('theme');
  const theme = signal<Theme>(storedTheme === 'light' || storedTheme === 'dark' ? storedTheme : 'auto');
  const storedLocale = read('locale');
  /** Chosen in this browser; otherwise the agent's own (from the session) or the browser's. */
  const chosenLocale = signal<Locale | null>(isLocale(storedLocale) ? storedLocale : null);
  const notify = signal(read('notify') === 'on');

  effect(() => {
    // `data-theme` overrides prefers-color-scheme in the stylesheet; "auto" follows the system.
    if (theme.value === 'auto') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme.value);
  });

  return {
    theme,
    chosenLocale,
    notify,
    setTheme(next: Theme) {
      theme.value = next;
      write('theme', next === 'auto' ? null : next);
    },
    /** `null`: none chosen in this browser, the agent's own language (their profile) applies. */
    setLocale(next: Locale | null) {
      chosenLocale.value = next;
      write('locale', next);
    },
    localeFor: (agentLocale?: string | null): Locale =>
      chosenLocale.value ?? pickLocale([agentLocale, ...(typeof navigator === 'undefined' ? [] : navigator.languages)]),
    async setNotify(on: boolean) {
      if (on && typeof Notification !== 'undefined' && Notification.permission !== 'granted') {
        on = (await Notification.requestPermission()) === 'granted';
      }
      notify.value = on;
      write('notify', on ? 'on' : null);
      return on;
    },
  };
}
