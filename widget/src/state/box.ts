import { useState } from 'preact/hooks';

/**
 * A value whose change re-renders whoever shows it: `.value` to read and write, as with a signal of
 * @preact/signals, which this replaces to keep the panel inside its 20 KB budget (the library is
 * 2.6 KB gzip of it). No dependency tracking: a change to a store's box re-renders the whole panel
 * (a few dozen elements), a change to a component's box (useBox) re-renders that component.
 */
export interface Box<T> {
  value: T;
}

export function box<T>(initial: T, changed: () => void): Box<T> {
  let current = initial;
  return {
    get value() {
      return current;
    },
    set value(next) {
      if (Object.is(next, current)) return;
      current = next;
      changed();
    },
  };
}

/** A component's own box, kept across renders (what useSignal was). */
export function useBox<T>(initial: T): Box<T> {
  const [, setTick] = useState(0);
  const [own] = useState(() => box(initial, () => setTick((n) => n + 1)));
  return own;
}
