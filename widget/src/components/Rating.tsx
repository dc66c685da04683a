import { useBox } from '../state/box.js';
import { useStore } from '../state/context.js';

/**
 * 1-5 stars once the ticket is closed, an optional comment, and a thank-you. Each star is a button
 * with its number in words; chosen stars are filled (★), the others outlined (☆), so the choice does
 * not rest on colour alone, and both colours have 3:1 contrast with the panel (WCAG 1.4.11).
 */
export function Rating() {
  const s = useStore();
  const { t, fill } = s;
  const rating = s.ticket.value?.rating;
  const score = useBox(rating?.score ?? 0);
  const comment = useBox(rating?.comment ?? '');
  const error = useBox('');
  const busy = useBox(false);
  if (rating)
    return (
      <div class="notice" role="status">
        <p>{t.thanks}</p>
        <p class="muted">{fill(t.rated, { n: rating.score })}</p>
        {rating.comment && <p class="muted">{rating.comment}</p>}
      </div>
    );
  async function send(e: Event) {
    e.preventDefault();
    if (!score.value || busy.value) return;
    busy.value = true;
    error.value = '';
    try {
      await s.rate(score.value, comment.value);
    } catch (err) {
      error.value = s.describe(err);
    } finally {
      busy.value = false;
    }
  }
  return (
    <form onSubmit={send} noValidate>
      <div role="group" aria-labelledby="tk-rate">
        <p id="tk-rate">{t.rateLabel}</p>
        <div class="stars">
          {[1, 2, 3, 4, 5].map((n) => (
            <button
              type="button"
              class={n <= score.value ? 'star on' : 'star'}
              aria-pressed={n === score.value}
              aria-label={fill(t.rateStar, { n })}
              onClick={() => (score.value = n)}
            >
              {n <= score.value ? '★' : '☆'}
            </button>
          ))}
        </div>
      </div>
      {score.value > 0 && (
        <>
          <div>
            <label for="tk-rate-comment">{t.rateComment}</label>
            <textarea
              id="tk-rate-comment"
              maxLength={2000}
              value={comment.value}
              onInput={(e) => (comment.value = e.currentTarget.value)}
            />
          </div>
          <div class="row">
            <button class="btn" type="submit" disabled={busy.value}>
              {busy.value ? t.sending : t.rateSend}
            </button>
          </div>
        </>
      )}
      {error.value && (
        <p class="err" role="alert">
          {error.value}
        </p>
      )}
    </form>
  );
}
