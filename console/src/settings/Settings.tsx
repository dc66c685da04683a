import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useStore, useStrings } from '../state/context.js';
import { GROUPS, SECTIONS, sectionLabel } from './sections.js';
import './settings.css';
import { settingsStrings } from './kit/strings.js';

const loaded = new Map<string, ComponentType>();

/** Settings for admins: the sections on the left, the open one on the right (its code fetched on first use). */
export function Settings({ section }: { section: string | null }) {
  const s = useStore();
  const t = useStrings(settingsStrings);
  const id = section ?? SECTIONS[0]!.id;
  const def = SECTIONS.find((x) => x.id === id);
  const [Screen, setScreen] = useState<ComponentType | null>(() => loaded.get(id) ?? null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    document.title = `${sectionLabel(t, id)} · ${t.settings}`;
    if (!def) return;
    const have = loaded.get(id);
    if (have) return void setScreen(() => have);
    setScreen(null);
    setFailed(false);
    let live = true;
    def.load().then(
      (C) => {
        loaded.set(id, C);
        if (live) setScreen(() => C);
      },
      () => live && setFailed(true),
    );
    return () => void (live = false);
  }, [id]);

  if (s.me.value?.role !== 'admin')
    return (
      <main id="main" class="settings-denied">
        <p class="banner">{t.adminOnly}</p>
      </main>
    );

  return (
    <div class="settings">
      <nav class="settings-nav" aria-label={t.sections}>
        {GROUPS.map((g) => (
          <div class="settings-group">
            <h2>{t[`group_${g}`]}</h2>
            <ul>
              {SECTIONS.filter((x) => x.group === g).map((x) => (
                <li>
                  <a href={`/console/settings/${x.id}`} aria-current={x.id === id ? 'page' : undefined}>
                    {sectionLabel(t, x.id)}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" class="settings-main">
        {!def ? (
          <p class="banner">{t.notFound}</p>
        ) : failed ? (
          <p class="err banner" role="alert">
            {s.t.value.networkError}
          </p>
        ) : Screen ? (
          <Screen />
        ) : (
          <p class="hint">{t.loading}</p>
        )}
      </main>
    </div>
  );
}
