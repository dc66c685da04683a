import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ColorInput, CopyButton, SettingsForm, TextArea, TextInput } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import './design.css';
import { designStrings } from './strings.js';

/** `/admin r=design`: docs/api.md "/admin", `design`. */
interface Design {
  title: string;
  greeting: string;
  primary_color: string;
  position: 'bottom-right' | 'bottom-left';
  theme: 'auto' | 'light' | 'dark';
  launcher_label: string | null;
  logo_url: string | null;
  locale: 'en' | 'de' | 'fr' | 'es' | 'ar';
}

/** Where the snippet's script comes from and which public key it carries (null: none yet). */
interface Install {
  base: string;
  key: string | null;
}

/**
 * The widget's design, with the real widget beside the form showing the unsaved draft, and the tag to
 * paste. The public key comes from /widget-config (public keys are stored in plain text and meant to be
 * seen); the script's address from /me's public_url.
 */
export function DesignSettings() {
  const t = useStrings(designStrings);
  const s = useStore();
  const design = useResource<Design>('design');
  const [install, setInstall] = useState<Install | null>(null);

  useEffect(() => {
    const get = (path: string) =>
      fetch(`${s.api.base}${path}`, { credentials: 'same-origin' }).then((r) => (r.ok ? r.json() : null));
    void Promise.all([get('/widget-config'), get('/me')]).then(
      ([config, me]: [{ public_key?: string | null } | null, { portal?: { public_url?: string } } | null]) =>
        setInstall({
          base: (me?.portal?.public_url || location.origin).replace(/\/+$/, ''),
          key: config?.public_key ?? null,
        }),
      () => setInstall({ base: location.origin, key: null }),
    );
  }, []);

  const e = design.errors;
  const snippet =
    install && `<script src="${install.base}/widget.js" data-key="${install.key ?? 'pk_live_…'}" async></script>`;

  return (
    <>
      <SettingsForm
        title={t.title}
        intro={t.intro}
        resource={design}
        aside={(d) => (
          <>
            <h2 class="preview-title">{t.preview}</h2>
            {install?.key ? <Preview design={d} publicKey={install.key} /> : install && <p class="banner">{t.noKey}</p>}
          </>
        )}
      >
        {(d, set) => (
          <>
            <TextInput
              id="design-title"
              label={t.widgetTitle}
              hint={t.widgetTitleHint}
              error={e.title}
              value={d.title}
              onChange={(v) => set({ ...d, title: v })}
            />
            <TextArea
              id="design-greeting"
              label={t.greeting}
              hint={t.greetingHint}
              error={e.greeting}
              rows={2}
              value={d.greeting}
              onChange={(v) => set({ ...d, greeting: v })}
            />
            <ColorInput
              id="design-color"
              label={t.color}
              hint={t.colorHint}
              error={e.primary_color}
              value={d.primary_color}
              onChange={(v) => set({ ...d, primary_color: v })}
            />
            <Choice
              id="design-position"
              label={t.position}
              error={e.position}
              value={d.position}
              options={[
                { value: 'bottom-right', label: t.bottomRight },
                { value: 'bottom-left', label: t.bottomLeft },
              ]}
              onChange={(v) => set({ ...d, position: v })}
            />
            <Choice
              id="design-theme"
              label={t.theme}
              error={e.theme}
              value={d.theme}
              options={[
                { value: 'auto', label: t.themeAuto },
                { value: 'light', label: t.themeLight },
                { value: 'dark', label: t.themeDark },
              ]}
              onChange={(v) => set({ ...d, theme: v })}
            />
            <TextInput
              id="design-launcher-label"
              label={t.launcherLabel}
              hint={t.launcherLabelHint}
              error={e.launcher_label}
              value={d.launcher_label}
              onChange={(v) => set({ ...d, launcher_label: v.trim() ? v : null })}
            />
            <TextInput
              id="design-logo"
              type="url"
              label={t.logo}
              hint={t.logoHint}
              error={e.logo_url}
              value={d.logo_url}
              placeholder="https://"
              onChange={(v) => set({ ...d, logo_url: v.trim() ? v.trim() : null })}
            />
            <Choice
              id="design-locale"
              label={t.locale}
              error={e.locale}
              value={d.locale}
              options={[
                { value: 'en', label: 'English' },
                { value: 'de', label: 'Deutsch' },
                { value: 'fr', label: 'Français' },
                { value: 'es', label: 'Español' },
                { value: 'ar', label: 'العربية' },
              ]}
              onChange={(v) => set({ ...d, locale: v })}
            />
          </>
        )}
      </SettingsForm>
      {snippet && (
        <section class="settings-page snippet" aria-labelledby="design-snippet">
          <h2 id="design-snippet">{t.snippet}</h2>
          <p class="hint">{t.snippetIntro}</p>
          <pre>
            <code>{snippet}</code>
          </pre>
          {!install?.key && <p class="hint">{t.snippetNoKey}</p>}
          <CopyButton text={snippet} label={t.copySnippet} />
        </section>
      )}
    </>
  );
}

/**
 * The real widget in a frame (/console/widget-preview, served with a CSP that lets only this origin
 * frame it). Each change of the draft mounts the widget again there, shortly after typing stops; the
 * panel stays open or closed as the admin left it, and focus stays in the form while typing.
 */
function Preview({ design, publicKey }: { design: Design; publicKey: string }) {
  const t = useStrings(designStrings);
  const frame = useRef<HTMLIFrameElement>(null);
  const state = useRef({ ready: false, open: true, disarm: () => {} });
  const latest = JSON.stringify(design);

  /**
   * The panel takes focus when it opens. For a moment after a mount caused by typing, focus that moves
   * from the field into the frame is given back, unless the admin touched the preview meanwhile.
   */
  const keepFocus = () => {
    state.current.disarm();
    const field = document.activeElement;
    if (!(field instanceof HTMLElement) || field === frame.current || !field.closest('.settings-form')) return;
    const back = () =>
      setTimeout(() => {
        if (document.activeElement === frame.current) field.focus();
      });
    field.addEventListener('focusout', back);
    const timer = setTimeout(() => state.current.disarm(), 2000);
    state.current.disarm = () => {
      field.removeEventListener('focusout', back);
      clearTimeout(timer);
      state.current.disarm = () => {};
    };
  };

  const send = () => {
    const win = frame.current?.contentWindow;
    if (!win || !state.current.ready) return;
    if (state.current.open) keepFocus();
    win.postMessage({ key: publicKey, design: JSON.parse(latest), open: state.current.open }, location.origin);
  };

  useEffect(() => {
    const hear = (e: MessageEvent<{ preview?: string }>) => {
      if (e.origin !== location.origin || e.source !== frame.current?.contentWindow) return;
      const what = e.data?.preview;
      if (what === 'ready') {
        state.current.ready = true;
        send();
      } else if (what === 'touch') state.current.disarm();
      else if (what === 'open' || what === 'close') state.current.open = what === 'open';
    };
    addEventListener('message', hear);
    return () => {
      removeEventListener('message', hear);
      state.current.disarm();
    };
  }, [publicKey]);

  useEffect(() => {
    const timer = setTimeout(send, 250);
    return () => clearTimeout(timer);
  }, [latest, publicKey]);

  return (
    <div class="design-preview">
      <div class="design-preview-box">
        <iframe ref={frame} src="/console/widget-preview" title={t.previewFrame} />
      </div>
      <p class="hint">{t.previewHint}</p>
    </div>
  );
}
