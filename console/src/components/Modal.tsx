import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal dialog on the native <dialog>: the browser keeps focus inside, closes it on Escape and gives
 * focus back to where it was.
 */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal?.();
    return () => d.open && d.close();
  }, []);
  return (
    <dialog ref={ref} class={`modal ${props.class ?? ''}`} aria-labelledby={titleId} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
