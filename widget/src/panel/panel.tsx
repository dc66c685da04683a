import { signal } from '@preact/signals';
import { render } from 'preact';
import { Panel } from '../components/Panel.js';
import { StoreContext } from '../state/context.js';
import { createStore } from '../state/store.js';
import panelCss from '../styles/panel.css?inline';
import { adopt } from '../styles/adopt.js';
import type { PanelContext, PanelHandle } from '../types.js';

/** Mounts the Preact panel into the host's shadow root; the host decides when it shows. */
export function createPanel(ctx: PanelContext): PanelHandle {
  const sheet = adopt(ctx.root, panelCss);
  const container = document.createElement('div');
  ctx.root.append(container);
  const store = createStore(ctx);
  const visible = signal(false);
  const App = () => (visible.value ? <Panel /> : null);
  render(
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>,
    container,
  );
  return {
    show: () => (visible.value = true),
    hide: () => (visible.value = false),
    identify: (identity) => (store.identity.value = { ...identity }),
    prefill: (prefill) => (store.prefill.value = { ...prefill }),
    destroy() {
      render(null, container); // unmounts: every effect (polling, listeners) is cleaned up
      container.remove();
      ctx.root.adoptedStyleSheets = ctx.root.adoptedStyleSheets.filter((s) => s !== sheet);
    },
  };
}
