import { useSignal } from '@preact/signals';
import { useStore } from '../state/context.js';

/** 1-5 stars once the ticket is closed; each star is a button with its number in words. */
export function Rating() {
  const s = useStore();
  const { t, fill } = s;
  const error = useSignal('');
  const score = s.ticket.value?.rating?.score ?? 0;
  return (
    <div role="group" aria-labelledby="tk-rate">
      <p id="tk-rate">{t.rateLabel}</p>
      <div class="stars">
        {[1, 2, 3, 4, 5].map((n) => (
          <button
            type="button"
            class={n <= score ? 'star on' : 'star'}
            aria-pressed={n === score}
            aria-label={fill(t.rateStar, { n })}
            onClick={() => s.rate(n).catch((err: unknown) => (error.value = s.describe(err)))}
          >
            ★
          </button>
        ))}
      </div>
      {score > 0 && <p role="status">{t.thanks}</p>}
      {error.value && <p class="err">{error.value}</p>}
    </div>
  );
}
