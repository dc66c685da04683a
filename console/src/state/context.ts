import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Store } from './store.js';

export const StoreContext = createContext<Store | null>(null);

export function useStore(): Store {
  const s = useContext(StoreContext);
  if (!s) throw new Error('useStore outside <StoreContext.Provider>');
  return s;
}
