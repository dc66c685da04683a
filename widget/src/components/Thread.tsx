import { useEffect } from 'preact/hooks';
import { useStore } from '../state/context.js';
import type { Attachment } from '../types.js';
import { Rating } from './Rating.js';
import { ReplyBox } from './ReplyBox.js';

const POLL_MS = 10_000;

function Files({ list }: { list: Attachment[] }) {
  if (!list.length) return null;
  return (
    <div class="files">
      {list.map((a) => (
        <span class="chip">{a.name}</span>
      ))}
    </div>
  );
}

/**
 * One ticket: the message and replies, new replies appearing while it is open (polling with
 * If-None-Match about every 10 s while the page is visible), the reply box, closing and rating.
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

  const ticket = s.ticket.value;
  if (!ticket || ticket.id !== id) return <p class="muted">{s.ticketError.value ?? t.loading}</p>;
  const status = s.meta.value?.statuses.find((x) => x.id === ticket.status)?.name ?? ticket.status;
  return (
    <>
      <h3>{ticket.subject}</h3>
      <p class="muted">
        {t.statusLabel}: {status}
      </p>
      <article class="msg mine">
        <header>{t.you}</header>
        {ticket.message}
        <Files list={ticket.attachments} />
      </article>
      {ticket.replies.map((r) => (
        <article class={r.from_customer ? 'msg mine' : 'msg theirs'}>
          <header>{r.from_customer ? t.you : (r.author ?? t.support)}</header>
          {r.message}
          <Files list={r.attachments} />
        </article>
      ))}
      {s.isClosed.value ? (
        config.modules.rating && <Rating />
      ) : (
        <>
          <ReplyBox />
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
