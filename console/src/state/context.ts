import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Store } from './store.js';

export const StoreContext = createContext<Store | null>(null);

export function useStore(): Store {
  const s = useContext(StoreContext);
  if (!s) throw new Error('useStore outside <StoreContext.Provider>');
  return s;
}

/** A feature's own strings (`{ en, de }`, German may leave keys out) in the console's language. */
export function useStrings<T extends object>(strings: { en: T; de: Partial<T> }): T {
  const s = useStore();
  return s.locale.value === 'de' ? { ...strings.en, ...strings.de } : strings.en;
}
