import { createContext } from 'preact';
import { useContext, useEffect } from 'preact/hooks';
import type { Store } from './store.js';

export const StoreContext = createContext<Store | null>(null);
export const useStore = () => useContext(StoreContext)!;

/** Runs `fn(value)` once `value` has stopped changing for `ms` (search as you type). */
/** `fn` may be async: it handles its own errors, the timer ignores what it returns. */
export function useDebounced<T>(value: T, ms: number, fn: (value: T) => unknown) {
  useEffect(() => {
    const timer = setTimeout(() => void fn(value), ms);
    return () => clearTimeout(timer);
  }, [value]);
}
