import launcherCss from './styles/launcher.css?inline';
import { adopt } from './styles/adopt.js';
import type {
  Identity,
  PanelHandle,
  PanelModule,
  Prefill,
  TicketingHandle,
  WidgetConfig,
  WidgetEvent,
  WidgetOptions,
} from './types.js';

// The launcher's label, repeated from the i18n tables on purpose: importing those would put every
// string of the panel into widget.js, which must stay under 3 KB.
const LABELS: Record<string, string> = { en: 'Contact support', de: 'Support kontaktieren' };
const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2zm3 6v2h2v-2H7zm4 0v2h2v-2h-2zm4 0v2h2v-2h-2z"/></svg>';

/** Black or white, whichever reads better on the configured colour (WCAG relative luminance). */
export function onColor(hex: string): string {
  const h = hex.length === 4 ? hex.replace(/\w/g, (c) => c + c) : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000' : '#fff';
}

const warn = (...args: unknown[]) => console.error('[ticketing]', ...args);

/**
 * The part every page loads: a host element with one shadow root, the launcher button, and the
 * page-facing handle. The panel (Preact) is imported on first open, or prefetched when the launcher
 * is hovered or focused. Never throws into the host page.
 */
export function createWidget(options: WidgetOptions, loadPanel: () => Promise<PanelModule>): TicketingHandle {
  const listeners: Record<string, Set<(detail?: unknown) => void>> = {};
  const emit = (event: WidgetEvent, detail?: unknown) =>
    listeners[event]?.forEach((fn) => {
      try {
        fn(detail);
      } catch (err) {
        warn(`a "${event}" handler failed`, err);
      }
    });
  const host = document.createElement('div');
  host.setAttribute('data-ticketing', '');
  const root = host.attachShadow({ mode: 'open' });
  adopt(root, launcherCss);
  const button = document.createElement('button');
  button.className = 'launcher';
  button.type = 'button';
  button.hidden = true;
  button.setAttribute('aria-haspopup', 'dialog');
  button.setAttribute('aria-expanded', 'false');
  button.innerHTML = ICON; // a constant, never content from the API
  root.append(button);
  (options.container ?? document.body).append(host);

  let config: WidgetConfig | undefined;
  let module: Promise<PanelModule> | undefined;
  let panel: PanelHandle | undefined;
  let isOpen = false;
  let wantOpen = false;
  let destroyed = false;
  const identity: Identity = {};
  const prefill: Prefill = {};
  const abort = new AbortController();

  const load = () => {
    module ??= loadPanel().catch((err: unknown) => {
      module = undefined;
      warn('could not load the panel', err);
      emit('error', err);
      throw err;
    });
    return module;
  };

  const handle: TicketingHandle = {
    open() {
      wantOpen = true;
      if (!config || isOpen || destroyed) return;
      load().then(
        (m) => {
          if (destroyed || !wantOpen || isOpen) return;
          panel ??= m.createPanel({
            root,
            api: options.api,
            apiKey: options.key,
            config: config!,
            locale: options.locale ?? config!.design.locale,
            identity,
            prefill,
            emit,
            requestClose: () => handle.close(),
          });
          panel.show();
          isOpen = true;
          button.setAttribute('aria-expanded', 'true');
          emit('open');
        },
        () => {},
      );
    },
    close() {
      wantOpen = false;
      if (!isOpen) return;
      panel?.hide();
      isOpen = false;
      button.setAttribute('aria-expanded', 'false');
      button.focus();
      emit('close');
    },
    toggle: () => (isOpen ? handle.close() : handle.open()),
    identify(next) {
      Object.assign(identity, next);
      panel?.identify(identity);
    },
    prefill(next) {
      Object.assign(prefill, next);
      panel?.prefill(prefill);
    },
    on(event, fn) {
      (listeners[event] ??= new Set()).add(fn);
      return () => listeners[event]?.delete(fn);
    },
    destroy() {
      destroyed = true;
      abort.abort();
      panel?.destroy();
      host.remove();
      for (const k in listeners) delete listeners[k];
    },
  };

  button.addEventListener('click', () => handle.toggle());
  // Prefetch on intent, never merely because the page is idle.
  button.addEventListener('mouseenter', () => void load().catch(() => {}), { once: true });
  button.addEventListener('focus', () => void load().catch(() => {}), { once: true });

  fetch(`${options.api}/widget-config`, { headers: { Authorization: `Bearer ${options.key}` }, signal: abort.signal })
    .then(async (res) => {
      if (!res.ok) throw new Error(`widget-config answered ${res.status}`);
      config = (await res.json()) as WidgetConfig;
      const d = config.design;
      host.style.setProperty('--tk-primary', d.primary_color);
      host.style.setProperty('--tk-on-primary', onColor(d.primary_color));
      host.setAttribute('data-position', options.position ?? d.position);
      const label = d.launcher_label ?? LABELS[options.locale ?? d.locale] ?? LABELS.en!;
      button.setAttribute('aria-label', label);
      button.title = label;
      button.hidden = false;
      emit('ready');
      if (options.open || wantOpen) handle.open();
    })
    .catch((err: unknown) => {
      if (destroyed) return;
      warn('could not start', err);
      emit('error', err);
    });

  return handle;
}
