import { useStore } from '../state/context.js';
import { Icon } from './icons.js';

/** Toasts at the bottom of the screen; a polite live region, errors assertive. */
export function Toasts() {
  const s = useStore();
  const list = s.toasts.list.value;
  return (
    <div class="toasts">
      <div role="status" aria-live="polite">
        {list
          .filter((x) => !x.error)
          .map((x) => (
            <div class="toast" key={x.id}>
              <span>{x.text}</span>
              {x.action && (
                <button
                  type="button"
                  class="btn small"
                  onClick={() => {
                    s.toasts.dismiss(x.id);
                    x.action!.run();
                  }}
                >
                  {x.action.label}
                </button>
              )}
              <button
                type="button"
                class="icon-btn small"
                aria-label={s.t.value.close}
                onClick={() => s.toasts.dismiss(x.id)}
              >
                <Icon name="close" />
              </button>
            </div>
          ))}
      </div>
      <div role="alert">
        {list
          .filter((x) => x.error)
          .map((x) => (
            <div class="toast error" key={x.id}>
              <span>{x.text}</span>
              <button
                type="button"
                class="icon-btn small"
                aria-label={s.t.value.close}
                onClick={() => s.toasts.dismiss(x.id)}
              >
                <Icon name="close" />
              </button>
            </div>
          ))}
      </div>
    </div>
  );
}
