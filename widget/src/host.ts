import launcherCss from './styles/launcher.css?inline';
import { adopt } from './styles/adopt.js';
import type {
  Identity,
  WatchModule,
  Watcher,
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
const LABELS: Record<string, string> = {
  en: 'Contact support',
  de: 'Support kontaktieren',
  fr: 'Contacter le support',
  es: 'Contactar con soporte',
  ar: 'تواصل مع الدعم',
};
type Design = WidgetConfig['design'];
const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Black or white, whichever reads better on the configured colour (WCAG relative luminance). */
function onColor(hex: string): string {
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
 * The part every page loads: draws the launcher in one shadow root and gives the page its handle.
 * The server writes the portal's design into the widget.js it serves (`stored`), so the launcher goes
 * in without waiting for a request; /widget-config (form, categories, hours: what the panel needs) is
 * asked for with the panel. Without `stored` (the npm package's mount(), a copy of widget.js served
 * elsewhere) /widget-config is asked for first and the launcher drawn from its answer. The panel
 * (Preact) is imported on first open, or prefetched when the launcher is hovered or focused. Never
 * throws into the host page.
 *
 * Cheap on purpose (BENCHMARKS.md, "loader main-thread ms"; each choice measured in Chromium): a
 * request's completion costs the page more main-thread time than drawing the launcher, so none is
 * made before it; the host, its stylesheet (colours included) and the launcher go in at once.
 * XMLHttpRequest costs the page less than a first fetch(); the icon is CSS (launcher.css), not an SVG
 * element; no element.style.
 */
export function createWidget(
  options: WidgetOptions,
  loadPanel: () => Promise<PanelModule>,
  loadWatch: () => Promise<WatchModule>,
  stored?: Design,
): TicketingHandle {
  const listeners: Record<string, Set<(detail?: unknown) => void>> = {};
  const emit = (event: WidgetEvent, detail?: unknown) =>
    listeners[event]?.forEach((fn) => {
      try {
        fn(detail);
      } catch (err) {
        warn(`a "${event}" handler failed`, err);
      }
    });

  let host: HTMLElement | undefined;
  let root: ShadowRoot | undefined;
  let button: HTMLButtonElement | undefined;
  let design: Design | undefined;
  let config: Promise<WidgetConfig> | undefined;
  let xhr: XMLHttpRequest | undefined;
  let module: Promise<PanelModule> | undefined;
  let panel: PanelHandle | undefined;
  let isOpen = false;
  let wantOpen = false;
  let destroyed = false;
  const identity: Identity = {};
  const prefill: Prefill = {};
  let label = '';
  let watcher: Promise<Watcher> | undefined;

  // data-locale, else the page's language, else the browser's, the first the widget has a table
  // for (fr-CA counts as fr); else the portal's configured locale.
  const locale = () =>
    options.locale ??
    [document.documentElement.lang, ...navigator.languages].find((tag) => LABELS[tag.split('-')[0]!.toLowerCase()]) ??
    design!.locale;
  // A design override (data-design: the console's preview) wins over the stored design, on this page only.
  const ours = (d: Design) => (options.design ? { ...d, ...options.design } : d) as Design;

  /**
   * Unread replies (watch.ts, a file of its own): started once this browser remembers a ticket or
   * the page identified a verified customer; nothing is loaded or sent for anyone else.
   */
  const watch = () => {
    let any = Boolean(identity.signature);
    try {
      any ||= localStorage.getItem(`ticketing:tickets:${options.key}`) !== null;
    } catch {
      /* no storage: nothing remembered */
    }
    if (destroyed || !button || !(any || watcher)) return;
    (watcher ??= loadWatch().then((m) =>
      m.startWatch({
        ...options,
        root: root!,
        button: button!,
        label,
        locale: locale(),
        identity,
        emit,
        // Only a thread on screen is reloaded: reloading marks its replies seen.
        refresh: () => isOpen && panel?.refresh(),
        isOpen: () => isOpen,
      }),
    )).then(
      (w) => (destroyed ? w.stop() : w.restart()),
      () => (watcher = undefined),
    );
  };
  const load = () => {
    module ??= loadPanel().then(
      (m) => (m.prefetch(locale()), m),
      (err: unknown) => {
        module = undefined;
        warn('could not load the panel', err);
        emit('error', err);
        throw err;
      },
    );
    return module;
  };

  const handle: TicketingHandle = {
    open() {
      wantOpen = true;
      if (!design || isOpen || destroyed) return;
      Promise.all([load(), configured()]).then(
        ([m, config]) => {
          if (destroyed || !wantOpen || isOpen) return;
          panel ??= m.createPanel({
            root: root!,
            api: options.api,
            apiKey: options.key,
            config,
            locale: locale(),
            identity,
            prefill,
            link: options.link,
            emit,
            requestClose: () => handle.close(),
            seen: watch,
          });
          panel.show();
          isOpen = true;
          button!.setAttribute('aria-expanded', 'true');
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
      button!.setAttribute('aria-expanded', 'false');
      button!.focus();
      emit('close');
    },
    toggle: () => (isOpen ? handle.close() : handle.open()),
    identify(next) {
      Object.assign(identity, next);
      panel?.identify(identity);
      watch();
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
      xhr?.abort();
      void watcher?.then((w) => w.stop());
      panel?.destroy();
      host?.remove();
      for (const k in listeners) delete listeners[k];
    },
  };

  function draw(d: Design) {
    if (destroyed) return;
    design = d = ours(d);
    const color = HEX.test(d.primary_color) ? d.primary_color : '#2563eb';
    const l = locale().split('-')[0]!.toLowerCase();
    label = d.translations?.[l as 'en']?.launcher_label ?? d.launcher_label ?? LABELS[l] ?? LABELS.en!;
    host = document.createElement('div');
    host.setAttribute('data-ticketing', '');
    host.setAttribute('data-position', options.position ?? d.position);
    root = host.attachShadow({ mode: 'open' });
    // The colours as a rule of the launcher's own sheet: one stylesheet parse, and no inline style on
    // the host (which would also bring in CSSStyleDeclaration, a costly first use).
    adopt(root, `${launcherCss}:host{--tk-primary:${color};--tk-on-primary:${onColor(color)}}`);
    button = document.createElement('button');
    button.className = 'launcher';
    button.type = 'button';
    button.setAttribute('aria-haspopup', 'dialog');
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-label', label);
    button.title = label;
    button.addEventListener('click', () => handle.toggle());
    // Prefetch on intent, never merely because the page is idle.
    const intent = () => {
      load().catch(() => {});
      configured().catch(() => {});
    };
    button.addEventListener('mouseenter', intent, { once: true });
    button.addEventListener('focus', intent, { once: true });
    root.append(button);
    (options.container ?? document.body).append(host);
    emit('ready');
    // The unread check reads localStorage, whose first use on a page waits for the browser to load
    // the origin's storage (measured: the largest and least steady part of the loader's cost, up to
    // 10 ms at 4x CPU). Drawing needs none of it: it runs 2 s later, when the page is idle, unless the
    // panel started the watcher meanwhile.
    const check = () => {
      if (!watcher) watch();
    };
    setTimeout(
      () => (typeof requestIdleCallback === 'function' ? requestIdleCallback(check, { timeout: 1000 }) : check()),
      2000,
    );
    if (options.open || wantOpen) handle.open();
  }

  /**
   * /widget-config, asked for once. A refusal (401, 403: a revoked or unknown key, a site the key does
   * not allow) means the widget cannot work on this page: it goes away. Any other failure (rate
   * limited, a restart, no network): asked again at the next hover or click.
   */
  function configured(): Promise<WidgetConfig> {
    let refused = false;
    return (config ??= new Promise<WidgetConfig>((ok, no) => {
      const x = (xhr = new XMLHttpRequest());
      x.open('GET', `${options.api}/widget-config`);
      x.setRequestHeader('Authorization', `Bearer ${options.key}`);
      x.responseType = 'json';
      x.onload = x.onerror = () => {
        const c = x.response as WidgetConfig | null;
        if (x.status === 200 && c) return ok({ ...c, design: ours(c.design) });
        refused = x.status === 401 || x.status === 403;
        if (!refused) config = undefined;
        no(new Error(x.status ? `widget-config answered ${x.status}` : 'widget-config could not be reached'));
      };
      // Sent from a microtask, so that the call stack at send() is one short function: with DevTools'
      // network recording on, Chromium captures each request's initiator stack and V8 re-parses every
      // function on it for line numbers. Nothing changes for anyone else.
      queueMicrotask(() => x.send());
    }).catch((err: unknown) => {
      warn('could not start', err);
      emit('error', err);
      if (refused) handle.destroy();
      throw err;
    }));
  }

  // After the loader has replayed the page's queued calls (its `on('ready')` among them), and once
  // there is a body to put the launcher in (an async script in <head> may run before it is parsed).
  const start = () => {
    if (stored) draw(stored);
    else
      configured().then(
        (c) => draw(c.design),
        () => {},
      );
  };
  queueMicrotask(() =>
    options.container || document.body ? start() : document.addEventListener('DOMContentLoaded', start, { once: true }),
  );

  return handle;
}
