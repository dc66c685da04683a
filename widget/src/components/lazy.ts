import { signal, type Signal } from '@preact/signals';
import { h, type ComponentChildren, type FunctionComponent } from 'preact';

export type Lazy<P> = FunctionComponent<P> & { preload(): void };

/**
 * A component whose code is a file of its own, fetched the first time it is shown or preloaded;
 * until it is there, `fallback` shows (nothing by default). Views few customers see (the rating, the
 * files of a message, an article, Turnstile) and the Markdown renderer stay out of the panel's first
 * download, which keeps it inside its 20 KB with @preact/signals.
 */
export function lazy<P extends object>(
  load: () => Promise<FunctionComponent<P>>,
  fallback: (props: P) => ComponentChildren = () => null,
): Lazy<P> {
  let loaded: Signal<FunctionComponent<P> | null> | undefined;
  const preload = () => {
    if (loaded) return;
    const own = (loaded = signal<FunctionComponent<P> | null>(null));
    load().then(
      (component) => (own.value = component),
      // A failed fetch (offline) is tried again the next time the view is drawn.
      () => (loaded = undefined),
    );
  };
  const View = (props: P) => {
    preload();
    const component = loaded?.value;
    return component ? h(component, props) : fallback(props);
  };
  return Object.assign(View, { preload });
}
