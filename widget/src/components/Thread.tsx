import { useEffect, useRef } from 'preact/hooks';
import { useStore } from '../state/context.js';
import { lazy } from './lazy.js';
import { Markdown, PlainText } from './lazy-text.js';
import { ReplyBox } from './ReplyBox.js';

// Files and the rating are code of their own, fetched when a thread has files or is closed.
const Files = lazy(() => import('./Files.js').then((m) => m.Files));
const Rating = lazy(() => import('./Rating.js').then((m) => m.Rating));

const POLL_MS = 10_000;

/** Right after filing: the ticket's number (#1042) and what happens next. Focused, so it is read out first. */
function Created({ id, email }: { id: string; email: string }) {
  const { t, fill, config } = useStore();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div class="notice created" role="status" tabIndex={-1} ref={box} aria-labelledby="tk-created">
      <h3 id="tk-created">{t.createdTitle}</h3>
      <p>{fill(t.createdNumber, { id })}</p>
      {/* Only a server that sends mail answers by mail; otherwise the thread here is where answers come. */}
      <p>{fill(config.mail ? t.createdNext : t.createdHere, { email })}</p>
    </div>
  );
}

/**
 * One ticket: the message and replies with their files, new replies appearing while it is open
 * (polling with If-None-Match about every 10 s while the page is visible), the reply box, closing and
 * rating.
 */
export function Thread({ id, email }: { id: string; email: string }) {
  const s = useStore();
  const { t, config } = s;
  useEffect(() => {
    const poll = () => !document.hidden && void s.refresh(id, email);
    const timer = setInterval(poll, POLL_MS);
    document.addEventListener('visibilitychange', poll);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', poll);
    };
  }, [id, email]);

  // Every message with its time, as the customer's locale writes it.
  const when = (iso: string) => (
    <time dateTime={iso}>
      {new Date(iso).toLocaleString(s.ctx.locale, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
  const ticket = s.ticket.value;
  if (!ticket || ticket.id !== id) return <p class="muted">{s.ticketError.value ?? t.loading}</p>;
  return (
    <>
      {s.justCreated.value === ticket.id && <Created id={`#${ticket.number}`} email={ticket.email} />}
      <h3>{ticket.subject}</h3>
      <p class="muted">
        #{ticket.number} · {t.statusLabel}: {s.statusName(ticket.status)}
      </p>
      <article class="msg mine">
        <header>
          {t.you} {when(ticket.created_at)}
        </header>
        <PlainText source={ticket.message} />
        {ticket.attachments.length > 0 && <Files list={ticket.attachments} />}
      </article>
      {ticket.replies.map((r) => (
        <article class={r.from_customer ? 'msg mine' : 'msg theirs'}>
          <header>
            {r.from_customer ? t.you : (r.author ?? t.support)} {when(r.created_at)}
          </header>
          {/* Support writes Markdown, rendered without HTML; the customer's own words stay as written. */}
          {r.from_customer ? <PlainText source={r.message} /> : <Markdown source={r.message} />}
          {r.attachments.length > 0 && <Files list={r.attachments} />}
        </article>
      ))}
      {s.isClosed() ? (
        <>
          {config.modules.rating && <Rating />}
          {/* A customer's reply reopens a closed ticket (POST /reply): no dead end, no duplicate ticket. */}
          <ReplyBox key={ticket.id} ticketId={ticket.id} label={t.stillNeedHelp} />
        </>
      ) : (
        <>
          <ReplyBox key={ticket.id} ticketId={ticket.id} label={t.yourReply} />
          {config.modules.close_request &&
            (ticket.close_request ? (
              <p class="notice">{t.closeRequested}</p>
            ) : (
              <button type="button" class="btn ghost" onClick={() => void s.requestClose().catch(() => {})}>
                {t.requestClose}
              </button>
            ))}
        </>
      )}
    </>
  );
}
