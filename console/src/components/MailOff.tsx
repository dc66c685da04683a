import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useStore } from '../state/context.js';

/** Whether support's replies reach customers by mail (/widget-config `mail`); null until asked, once a page load. */
const mailed = signal<boolean | null>(null);
let asked = false;

/**
 * Above the reply box when mail is not set up (or replies are not mailed): the customer learns of a
 * reply only in the widget, which an agent should know before writing "see our answer" (issue 30).
 * Admins get the way to fix it.
 */
export function MailOff() {
  const s = useStore();
  const t = s.t.value;
  useEffect(() => {
    if (asked) return;
    asked = true;
    fetch(`${s.api.base}/widget-config`, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? (r.json() as Promise<{ mail?: boolean }>) : null))
      .then(
        (c) => (mailed.value = c?.mail ?? null),
        () => (asked = false),
      );
  }, []);
  if (mailed.value !== false) return null;
  return (
    <p class="banner warn mail-off" role="note">
      {t.mailOff} {s.me.value?.role === 'admin' && <a href="/console/settings/mail">{t.mailOffFix}</a>}
    </p>
  );
}
