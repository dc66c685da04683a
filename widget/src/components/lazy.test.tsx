import { render } from 'preact';
import { describe, expect, it } from 'vitest';
import { lazy } from './lazy.js';

/** A load the test settles by hand: what a slow network, then an answer, looks like. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const until = async (fn: () => boolean) => {
  while (!fn()) await new Promise((r) => setTimeout(r, 0));
};

describe('lazy', () => {
  it('shows the fallback until the code is there, then the component, re-rendering by itself', async () => {
    const load = deferred<(p: { text: string }) => preact.JSX.Element>();
    let loads = 0;
    const View = lazy(
      () => (loads++, load.promise),
      (p: { text: string }) => `plain ${p.text}`,
    );
    const el = document.createElement('div');
    render(<View text="hi" />, el);
    expect(el.textContent).toBe('plain hi');
    render(<View text="again" />, el);
    expect(loads).toBe(1); // one fetch however often it is drawn
    load.resolve((p) => <b>{p.text}</b>);
    await until(() => el.innerHTML === '<b>again</b>');
    render(null, el);
  });

  it('tries a failed load again the next time it is drawn', async () => {
    const attempts = [deferred<() => preact.JSX.Element>(), deferred<() => preact.JSX.Element>()];
    let n = 0;
    const View = lazy(() => attempts[n++]!.promise);
    const el = document.createElement('div');
    render(<View />, el);
    attempts[0]!.reject(new Error('offline'));
    await attempts[0]!.promise.catch(() => {});
    await Promise.resolve();
    expect(el.innerHTML).toBe('');
    render(<View key="again" />, el);
    expect(n).toBe(2);
    attempts[1]!.resolve(() => <i>back</i>);
    await until(() => el.innerHTML === '<i>back</i>');
    render(null, el);
  });
});
