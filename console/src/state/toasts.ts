import { signal } from '@preact/signals';

export interface Toast {
  id: number;
  text: string;
  /** A button in the toast (Undo); pressing it closes the toast. */
  action?: { label: string; run: () => void };
  error?: boolean;
}

/** Short messages at the bottom of the screen, read out by screen readers; some offer Undo. */
export function createToasts(timeoutMs = 5000) {
  const list = signal<Toast[]>([]);
  let next = 1;
  const timers = new Map<number, ReturnType<typeof setTimeout>>();

  function dismiss(id: number) {
    clearTimeout(timers.get(id));
    timers.delete(id);
    list.value = list.value.filter((t) => t.id !== id);
  }
  function show(toast: Omit<Toast, 'id'>, ms = toast.error ? 10_000 : timeoutMs) {
    const id = next++;
    list.value = [...list.value.slice(-3), { ...toast, id }];
    timers.set(
      id,
      setTimeout(() => dismiss(id), ms),
    );
    return id;
  }
  return { list, show, dismiss };
}
export type Toasts = ReturnType<typeof createToasts>;
