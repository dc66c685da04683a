import './preview-frame.css';

/**
 * The page inside the design screen's preview (/console/widget-preview, framed by the console only):
 * it loads the real widget.js this server serves, with the console's unsaved design as `data-design`,
 * and mounts it again whenever the console sends a new one. Messages are taken from the framing
 * console page only (same origin, the parent window).
 */
interface PreviewMessage {
  key: string;
  design: Record<string, unknown>;
  open: boolean;
}
type Widget = { destroy?: () => void; on?: (event: string, fn: () => void) => void };
const w = window as unknown as { Ticketing?: Widget };
let script: HTMLScriptElement | undefined;

addEventListener('message', (e: MessageEvent<PreviewMessage>) => {
  if (e.origin !== location.origin || e.source !== parent || typeof e.data?.key !== 'string') return;
  w.Ticketing?.destroy?.();
  script?.remove();
  script = document.createElement('script');
  script.src = '/widget.js';
  script.dataset.key = e.data.key;
  script.dataset.design = JSON.stringify(e.data.design);
  // The language chosen in the form: visitors get their own (the page's, the browser's) first, but the
  // preview shows what the shop set.
  if (typeof e.data.design.locale === 'string') script.dataset.locale = e.data.design.locale;
  if (e.data.open) script.dataset.open = 'true';
  // Tells the console what the visitor did in the preview, so the next mount keeps the panel as it was.
  script.onload = () => {
    w.Ticketing?.on?.('open', () => parent.postMessage({ preview: 'open' }, location.origin));
    w.Ticketing?.on?.('close', () => parent.postMessage({ preview: 'close' }, location.origin));
  };
  document.body.append(script);
});
// The visitor is using the preview: the console stops guarding the form's focus.
for (const type of ['pointerdown', 'keydown'])
  addEventListener(type, () => parent.postMessage({ preview: 'touch' }, location.origin), true);
parent.postMessage({ preview: 'ready' }, location.origin);
