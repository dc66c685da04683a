import { render } from 'preact';
import { Panel } from '../components/Panel.js';
import { loadStrings } from '../i18n/t.js';
import { StoreContext } from '../state/context.js';
import { createStore, type Store } from '../state/store.js';
import panelCss from '../styles/panel.css?inline';
import { adopt } from '../styles/adopt.js';
import type { PanelContext, PanelHandle } from '../types.js';

/** Starts loading a locale's strings (when the launcher is hovered), so the first open waits for nothing. */
export function prefetch(locale: string) {
  void loadStrings(locale).catch(() => {});
}

/** The panel; each component re-renders when a signal it read changes (@preact/signals). */
function App({ store }: { store: Store }) {
  return (
    <StoreContext.Provider value={store}>
      <Panel />
    </StoreContext.Provider>
  );
}

/** Mounts the Preact panel into the host's shadow root; the host decides when it shows. */
export function createPanel(ctx: PanelContext): PanelHandle {
  const sheet = adopt(ctx.root, panelCss);
  const container = document.createElement('div');
  ctx.root.append(container);
  let store: Store | undefined;
  let visible = false;
  let destroyed = false;
  /** Reloads the thread on screen, if one is (its replies count as seen). */
  const refresh = () => {
    const v = store?.view.value;
    if (v?.name === 'thread') void store!.refresh(v.id, v.email);
  };
  const draw = () => render(store && visible ? <App store={store} /> : null, container);
  // The strings are a file of their own; the panel shows once they are there. Identity and prefill
  // given meanwhile are in ctx (the host's own objects), which the store starts from.
  loadStrings(ctx.locale).then(
    (t) => {
      if (destroyed) return;
      store = createStore(ctx, t);
      draw();
    },
    (err: unknown) => ctx.emit('error', err),
  );
  return {
    show() {
      visible = true;
      draw();
      refresh(); // a thread shown again is current, and what it shows is seen
    },
    hide: () => ((visible = false), draw()),
    identify: (identity) => store && (store.identity.value = { ...identity }),
    prefill: (prefill) => store && (store.prefill.value = { ...prefill }),
    refresh,
    destroy() {
      destroyed = true;
      render(null, container); // unmounts: every effect (polling, listeners) is cleaned up
      store?.dispose();
      container.remove();
      ctx.root.adoptedStyleSheets = ctx.root.adoptedStyleSheets.filter((s) => s !== sheet);
    },
  };
}
