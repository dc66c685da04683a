import { createWidget } from './host.js';
import { readOptions } from './options.js';
import type { PanelModule, TicketingHandle, WatchModule, WidgetConfig } from './types.js';

// The panel's file name, hashed, is known only after the panel build (see vite.loader.config.ts).
declare const __PANEL_FILE__: string;
declare const __WATCH_FILE__: string;
// The portal's design: the server serves this file wrapped in `(function (__ticketingDesign) { … })(design)`
// (server/src/static/widget-loader.ts), so the launcher is drawn without a request. Undeclared when the
// file is served as built.
declare const __ticketingDesign: WidgetConfig['design'] | undefined;

type Queued = unknown[];
type Global = ((command: string, ...args: unknown[]) => unknown) &
  Partial<TicketingHandle> & { q?: Queued[]; mounted?: true };

/**
 * The script-tag entry: reads data-*, installs window.Ticketing, replays calls queued by the snippet,
 * and hands over to the host. Loading the script twice mounts once.
 */
(function start() {
  const script = document.currentScript as HTMLScriptElement | null;
  const w = window as unknown as { Ticketing?: Global };
  if (!script || w.Ticketing?.mounted) return;
  const options = readOptions(script);
  if ('error' in options) {
    console.error(`[ticketing] ${options.error}`);
    return;
  }
  // Resolved when first needed, not on every page load.
  const url = (file: string) => new URL(file, script.src).href;
  const handle = createWidget(
    options,
    () => import(/* @vite-ignore */ url(__PANEL_FILE__)) as Promise<PanelModule>,
    () => import(/* @vite-ignore */ url(__WATCH_FILE__)) as Promise<WatchModule>,
    typeof __ticketingDesign === 'object' ? __ticketingDesign : undefined,
  );
  const queued = w.Ticketing?.q ?? [];
  const api = ((command: string, ...args: unknown[]) => {
    const fn = (handle as unknown as Record<string, (...a: unknown[]) => unknown>)[command];
    if (typeof fn === 'function') return fn(...args);
    console.error(`[ticketing] unknown command "${command}"`);
  }) as Global;
  Object.assign(api, handle, {
    mounted: true,
    destroy() {
      handle.destroy();
      delete w.Ticketing;
    },
  });
  w.Ticketing = api;
  for (const args of queued) api(...(args as [string, ...unknown[]]));
})();
