import { createWidget } from './host.js';
import type { TicketingHandle, WidgetOptions } from './public-types.js';

export type { Identity, Prefill, TicketingHandle, WidgetDesign, WidgetEvent, WidgetOptions } from './public-types.js';

let mounted: TicketingHandle | undefined;

/**
 * Mounts the widget from a bundler (the package `@ticketing/widget`); returns the same handle as
 * window.Ticketing. Mounting again while mounted returns the first handle.
 */
export function mount(options: WidgetOptions): TicketingHandle {
  if (options.key.startsWith('sk_'))
    throw new Error('[ticketing] mount() needs your public key (pk_…), not a secret key.');
  if (mounted) return mounted;
  const handle = createWidget(
    { ...options, api: options.api.replace(/\/+$/, '') },
    () => import('./panel/panel.js'),
    () => import('./watch.js'),
  );
  const destroy = handle.destroy;
  mounted = Object.assign(handle, {
    destroy() {
      destroy();
      mounted = undefined;
    },
  });
  return mounted;
}
