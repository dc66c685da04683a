import { useLocation } from 'preact-iso/router';
import { LANGUAGE_NAMES, LOCALES, isLocale } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import type { Theme } from '../state/prefs.js';
import { Icon } from './icons.js';
import { openShortcuts } from './Shortcuts.js';

const THEMES: Theme[] = ['auto', 'light', 'dark'];

export function Header() {
  const s = useStore();
  const t = s.t.value;
  const { path } = useLocation();
  const agent = s.me.value!;
  const theme = s.prefs.theme.value;
  const themeLabel = { auto: t.themeAuto, light: t.themeLight, dark: t.themeDark }[theme];
  const notifyOn = s.prefs.notify.value;
  const canNotify = typeof Notification !== 'undefined';
  const live = s.live.state.value;

  return (
    <header class="top">
      <a class="brand" href="/console/">
        {t.appName}
      </a>
      <nav aria-label={t.mainNav} class="main-nav">
        <a href="/console/" aria-current={!/^\/console\/(profile|settings|reports)/.test(path) ? 'page' : undefined}>
          {t.inbox}
        </a>
        <a href="/console/reports" aria-current={path.startsWith('/console/reports') ? 'page' : undefined}>
          {t.reports}
        </a>
        {agent.role === 'admin' && (
          <a href="/console/settings" aria-current={path.startsWith('/console/settings') ? 'page' : undefined}>
            {t.settings}
          </a>
        )}
        <a href="/console/profile" aria-current={path === '/console/profile' ? 'page' : undefined}>
          {t.profile}
        </a>
      </nav>
      <div class="tools">
        <span class={`live live-${live}`} title={t[`live_${live}`]}>
          <span class="sr">{t[`live_${live}`]}</span>
        </span>
        {/* Said aloud and shown while the stream is away: what is on screen may be behind. */}
        <span class="live-note" role="status">
          {live === 'reconnecting' || live === 'down' ? t.live_reconnecting : ''}
        </span>
        <button
          type="button"
          class="icon-btn"
          aria-label={`${t.theme}: ${themeLabel}`}
          title={`${t.theme}: ${themeLabel}`}
          onClick={() => s.prefs.setTheme(THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!)}
        >
          <Icon name={theme === 'dark' ? 'moon' : theme === 'light' ? 'sun' : 'auto'} />
        </button>
        <select
          class="lang"
          aria-label={t.language}
          value={s.locale.value}
          onChange={(e) => isLocale(e.currentTarget.value) && s.prefs.setLocale(e.currentTarget.value)}
        >
          {Object.keys(LOCALES).map((l) => (
            <option value={l}>{LANGUAGE_NAMES[l as keyof typeof LOCALES]}</option>
          ))}
        </select>
        {canNotify && (
          <button
            type="button"
            class="icon-btn"
            aria-pressed={notifyOn}
            aria-label={t.notifications}
            title={t.notifications}
            onClick={async () => {
              const on = await s.prefs.setNotify(!notifyOn);
              if (!notifyOn && !on) s.toasts.show({ text: t.notificationsBlocked, error: true });
            }}
          >
            <Icon name={notifyOn ? 'bell' : 'bellOff'} />
          </button>
        )}
        <button type="button" class="icon-btn" aria-label={t.shortcuts} title={t.shortcuts} onClick={openShortcuts}>
          <Icon name="keyboard" />
        </button>
        <button type="button" class="btn ghost" onClick={() => void s.signOut()}>
          {t.signOut}
          <span class="who"> ({agent.name})</span>
        </button>
      </div>
    </header>
  );
}
