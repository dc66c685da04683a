import { useEffect } from 'preact/hooks';
import { useStore } from '../state/context.js';

/**
 * "Your tickets": this browser's, and a verified customer's from any device, with status, last
 * activity and unread replies (GET /updates; the list this browser keeps shows until it answers).
 */
export function Tickets() {
  const s = useStore();
  const { t } = s;
  useEffect(() => {
    void s.loadMeta();
    void s.loadOverview();
  }, []);
  const date = (iso: string) => new Date(iso).toLocaleDateString(s.ctx.locale);
  const list = s.overview.value ?? s.saved.value;
  const emailOf = (id: string) => s.saved.value.find((x) => x.id === id)?.email ?? s.ctx.identity.email!;
  if (!list.length) return <p class="muted">{t.noTickets}</p>;
  return (
    <>
      <ul class="list">
        {list.map((x) => (
          <li>
            <button type="button" class="item" onClick={() => s.openTicket(x.id, emailOf(x.id))}>
              {x.subject}
              {'status' in x ? (
                <small>
                  {s.statusName(x.status)} · {s.fill(t.updated, { when: date(x.updated_at) })}
                  {x.unread > 0 && <b> · {s.count(t.unread, x.unread)}</b>}
                </small>
              ) : (
                <small>{date(x.created_at)}</small>
              )}
            </button>
          </li>
        ))}
      </ul>
      {s.saved.value.length > 0 && (
        <button type="button" class="link" onClick={s.forget}>
          {t.forget}
        </button>
      )}
    </>
  );
}
