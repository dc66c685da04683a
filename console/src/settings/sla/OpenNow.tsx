import type { BusinessHours, HoursNow } from '@ticketing/server/model';
import { useEffect, useState } from 'preact/hooks';
import { useStore, useStrings } from '../../state/context.js';
import { fmt } from '../rules/strings.js';
import { slaStrings } from './strings.js';

type Answer = { state: 'checking' } | { state: 'ok'; now: HoursNow } | { state: 'invalid'; message: string };

/**
 * Asks the server whether support is open (POST /hours/now, its own business-hours code) by `hours`,
 * or by the saved hours when `hours` is null; again a moment after each edit.
 */
function useOpenState(hours: BusinessHours | null, key: string): Answer {
  const s = useStore();
  const [answer, setAnswer] = useState<Answer>({ state: 'checking' });
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      s.api.hoursNow(hours ?? undefined).then(
        (now) => live && setAnswer({ state: 'ok', now }),
        (e: unknown) => live && setAnswer({ state: 'invalid', message: e instanceof Error ? e.message : String(e) }),
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return answer;
}

/** "Open now?" with the next opening, for the hours being edited and, when they differ, the saved ones. */
export function OpenNow(props: { draft: BusinessHours; saved: BusinessHours | null; dirty: boolean }) {
  const t = useStrings(slaStrings);
  const draft = useOpenState(props.draft, JSON.stringify(props.draft));
  const saved = useOpenState(null, JSON.stringify(props.saved));
  return (
    <section class="open-now" aria-labelledby="open-now-title">
      <h2 id="open-now-title">{t.nowTitle}</h2>
      <div aria-live="polite">
        {props.dirty ? (
          <>
            <h3>{t.nowDraft}</h3>
            <OpenState answer={draft} />
            <h3>{t.nowSaved}</h3>
            <OpenState answer={saved} />
          </>
        ) : (
          <OpenState answer={draft} />
        )}
      </div>
    </section>
  );
}

function OpenState({ answer }: { answer: Answer }) {
  const s = useStore();
  const t = useStrings(slaStrings);
  if (answer.state === 'checking') return <p class="hint">{t.nowChecking}</p>;
  if (answer.state === 'invalid') return <p class="hint">{t.nowInvalid}</p>;
  const { now } = answer;
  const when = (timeZone: string) =>
    new Intl.DateTimeFormat(s.locale.value, {
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      hour: '2-digit',
      minute: '2-digit',
      timeZone,
      timeZoneName: 'short',
    }).format(new Date(now.next_open_at!));
  const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <div class="open-state">
      <p class={now.open_now ? 'open-badge open' : 'open-badge'}>{now.open_now ? t.nowOpen : t.nowClosed}</p>
      {!now.open_now &&
        (now.next_open_at ? (
          <p>
            {fmt(t.nowNext, { when: when(now.timezone) })}
            {mine !== now.timezone && <span class="hint"> ({fmt(t.nowLocal, { when: when(mine) })})</span>}
          </p>
        ) : (
          <p class="hint">{t.nowNever}</p>
        ))}
    </div>
  );
}
