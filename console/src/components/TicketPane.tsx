import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { ConsoleTicket } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { AgentOptions, StatusBadge, TagChip } from './bits.js';
import { dateTime, relative } from './format.js';
import { MergeDialog, SpamDialog } from './TicketDialogs.js';
import { MailOff } from './MailOff.js';
import { ReplyBox } from './ReplyBox.js';
import { Thread } from './Thread.js';

/** One ticket: its thread, the reply box, and its details changed in place. */
export function TicketPane({ id, listQuery }: { id: string; listQuery: string }) {
  const s = useStore();
  const t = s.t.value;
  const ticket = s.ticket.ticket.value;
  const heading = useRef<HTMLHeadingElement>(null);
  const shownId = ticket?.id === id ? id : null;

  // Opening a ticket moves focus to its title, so a screen reader starts there (not on live updates).
  useEffect(() => {
    if (shownId && !heading.current?.contains(document.activeElement) && !document.activeElement?.closest('.compose'))
      heading.current?.focus({ preventScroll: false });
  }, [shownId]);

  const back = (
    <a class="back" href={`/console/${listQuery}`}>
      <span aria-hidden="true">← </span>
      {t.backToInbox}
    </a>
  );
  if (s.ticket.error.value && !shownId) {
    return (
      <article class="ticket" aria-label={t.ticketNotFound}>
        {back}
        <p class="err banner" role="alert">
          {s.ticket.notFound() ? t.ticketNotFound : s.describe(s.ticket.error.value)}
        </p>
      </article>
    );
  }
  if (!ticket || !shownId) {
    return (
      <article class="ticket" aria-busy="true" aria-label={t.loading}>
        {back}
        <p class="loading">{t.loading}</p>
      </article>
    );
  }

  return (
    <article class="ticket" aria-labelledby="ticket-title">
      {back}
      <header class="ticket-head">
        <h1 id="ticket-title" ref={heading} tabIndex={-1}>
          {ticket.subject}
        </h1>
        <p class="sub">
          <span class="number">#{ticket.number}</span> · <span>{ticket.name}</span>{' '}
          <span class="email">&lt;{ticket.email}&gt;</span> · <span>{ticket.id}</span>
        </p>
      </header>
      <PropsBar ticket={ticket} />
      <div class="sr" role="status" aria-live="polite">
        {s.ticket.announcement.value}
      </div>
      <div class="ticket-grid">
        <div class="conversation">
          {ticket.merged_into && (
            <p class="banner info">
              {t.mergedInto} <a href={`/console/tickets/${ticket.merged_into}${listQuery}`}>{ticket.merged_into}</a>
            </p>
          )}
          <CloseRequest ticket={ticket} />
          <Thread ticket={ticket} />
          <MailOff />
          <ReplyBox ticket={ticket} />
        </div>
        <Details ticket={ticket} listQuery={listQuery} />
      </div>
    </article>
  );
}

function CloseRequest({ ticket }: { ticket: ConsoleTicket }) {
  const s = useStore();
  const t = s.t.value;
  const busy = useSignal(false);
  if (!ticket.close_request) return null;
  const resolve = async (accept: boolean) => {
    busy.value = true;
    await s.ticket.change(() => s.api.closeResolve(ticket.id, accept));
    busy.value = false;
  };
  return (
    <div class="banner close-request" role="group" aria-labelledby="cr-text">
      <p id="cr-text">{ticket.close_request.by === 'customer' ? t.closeRequestCustomer : t.closeRequestAgent}</p>
      <div class="actions">
        <button type="button" class="btn primary" disabled={busy.value} onClick={() => resolve(true)}>
          {t.accept}
        </button>
        <button type="button" class="btn" disabled={busy.value} onClick={() => resolve(false)}>
          {t.reject}
        </button>
      </div>
    </div>
  );
}

/** What agents change all day, in place at the top of the ticket: status, priority, assignee, tags. */
function PropsBar({ ticket }: { ticket: ConsoleTicket }) {
  const s = useStore();
  const t = s.t.value;
  const meta = s.meta.value;
  const tag = useSignal('');
  const change = s.ticket.change;
  return (
    <section class="props-bar" aria-label={t.properties}>
      <div class="props">
        <label>
          <span>{t.status}</span>
          <select
            value={ticket.status}
            onChange={(e) => void change(() => s.api.status(ticket.id, e.currentTarget.value))}
          >
            {(meta?.statuses ?? [{ id: ticket.status, name: ticket.status }]).map((st) => (
              <option value={st.id}>{s.statusName(st.id)}</option>
            ))}
          </select>
        </label>
        <label>
          <span>{t.priority}</span>
          <select
            value={ticket.priority}
            onChange={(e) => void change(() => s.api.priority(ticket.id, e.currentTarget.value))}
          >
            {(meta?.priorities ?? ['low', 'normal', 'high', 'urgent']).map((p) => (
              <option value={p}>{t[`prio_${p}`]}</option>
            ))}
          </select>
        </label>
        <Snooze ticket={ticket} />
        <label>
          <span>{t.agent}</span>
          <select
            value={ticket.agent_id ?? ''}
            onChange={(e) => void change(() => s.api.assign(ticket.id, e.currentTarget.value || null))}
          >
            <option value="">{t.unassigned}</option>
            <AgentOptions current={ticket.agent_id} />
          </select>
        </label>
      </div>
      <div class="tags-edit">
        {/* h2: the ticket's h1 comes right before it (axe heading-order). */}
        <h2 id="tags-title">{t.tags}</h2>
        <div class="tag-list">
          {ticket.tags.length ? (
            ticket.tags.map((name) => (
              <TagChip
                key={name}
                tag={name}
                onRemove={() => void change(() => s.api.changeTags(ticket.id, { remove: [name] }))}
              />
            ))
          ) : (
            <span class="muted">{t.noTags}</span>
          )}
        </div>
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const name = tag.value.trim();
            if (!name) return;
            if (await change(() => s.api.changeTags(ticket.id, { add: [name] }))) tag.value = '';
          }}
        >
          <label for="tag-add" class="sr">
            {t.addTagLabel}
          </label>
          <input
            id="tag-add"
            list="tag-names"
            placeholder={t.addTagLabel}
            value={tag.value}
            onInput={(e) => (tag.value = e.currentTarget.value)}
          />
          <button type="submit" class="btn small">
            {t.addTagButton}
          </button>
        </form>
      </div>
    </section>
  );
}

/** When a snooze ends, from a few choices (local time). */
const SNOOZE_CHOICES = {
  snooze_1h: () => new Date(Date.now() + 3_600_000),
  snooze_tomorrow: () => {
    const d = new Date();
    d.setDate(d.getDate() + 1);
    d.setHours(9, 0, 0, 0);
    return d;
  },
  snooze_3d: () => new Date(Date.now() + 3 * 86_400_000),
  snooze_1w: () => new Date(Date.now() + 7 * 86_400_000),
} as const;

/** Snooze: out of Needs reply until a time or the customer's next message (/snooze); Wake ends it. */
function Snooze({ ticket }: { ticket: ConsoleTicket }) {
  const s = useStore();
  const t = s.t.value;
  if (s.isClosed(ticket.status)) return null;
  const until = ticket.snoozed_until && Date.parse(ticket.snoozed_until) > Date.now() ? ticket.snoozed_until : null;
  const snooze = async (at: Date | null) => {
    const ok = await s.ticket.change(() => s.api.snooze(ticket.id, at ? at.toISOString() : null));
    if (ok)
      s.toasts.show({
        text: at ? fill(t.snoozedToast, { time: dateTime(at.toISOString(), s.locale.value) }) : t.woken,
      });
  };
  return (
    <>
      <label>
        <span>{t.snooze}</span>
        <select
          value=""
          onChange={(e) => {
            const choice = e.currentTarget.value as keyof typeof SNOOZE_CHOICES | '';
            e.currentTarget.value = '';
            if (choice) void snooze(SNOOZE_CHOICES[choice]());
          }}
        >
          <option value="">{t.snoozeFor}</option>
          {(Object.keys(SNOOZE_CHOICES) as (keyof typeof SNOOZE_CHOICES)[]).map((k) => (
            <option value={k}>{t[k]}</option>
          ))}
        </select>
      </label>
      {until && (
        <p class="snoozed" role="status">
          {fill(t.snoozedUntil, { time: dateTime(until, s.locale.value) })}{' '}
          <button type="button" class="btn small" onClick={() => void snooze(null)}>
            {t.wake}
          </button>
        </p>
      )}
    </>
  );
}

/** The customer, the form's values, the customer's other tickets, merge and spam. */
function Details({ ticket, listQuery }: { ticket: ConsoleTicket; listQuery: string }) {
  const s = useStore();
  const t = s.t.value;
  const locale = s.locale.value;
  const meta = s.meta.value;
  const dialog = useSignal<'merge' | 'spam' | null>(null);
  const category = meta?.categories.find((c) => c.id === ticket.category);
  const fieldLabel = (id: string) => category?.fields.find((f) => f.id === id)?.label ?? id;
  const fieldValues = Object.entries(ticket.fields);

  return (
    <aside class="details" aria-label={t.customer}>
      <dl class="facts">
        <div>
          <dt>{t.customer}</dt>
          <dd>
            {ticket.name}
            <br />
            <span class="email">{ticket.email}</span>
          </dd>
        </div>
        <div>
          <dt>{t.created}</dt>
          <dd>
            <time dateTime={ticket.created_at}>{dateTime(ticket.created_at, locale)}</time>
          </dd>
        </div>
        {ticket.due_at && (
          <div>
            <dt>{t.dueLabel}</dt>
            <dd>
              <time dateTime={ticket.due_at}>
                {dateTime(ticket.due_at, locale)} ({relative(ticket.due_at, locale)})
              </time>
            </dd>
          </div>
        )}
        {ticket.category && (
          <div>
            <dt>{t.category}</dt>
            <dd>{category?.name ?? ticket.category}</dd>
          </div>
        )}
        {fieldValues.map(([k, v]) => (
          <div key={k}>
            <dt>{fieldLabel(k)}</dt>
            <dd>{typeof v === 'boolean' ? (v ? '✓' : '✗') : String(v)}</dd>
          </div>
        ))}
        {ticket.page_url && (
          <div>
            <dt>{t.pageUrl}</dt>
            {/* As text, never a link: the customer's side chose it (docs/api.md, mail). */}
            <dd class="url">{ticket.page_url}</dd>
          </div>
        )}
        {ticket.rating && (
          <div>
            <dt>{fill(t.rating, { score: ticket.rating.score })}</dt>
            <dd>{ticket.rating.comment ?? '★'.repeat(ticket.rating.score)}</dd>
          </div>
        )}
      </dl>
      <section class="others" aria-labelledby="others-title">
        <h3 id="others-title">{t.otherTickets}</h3>
        {s.ticket.others.value.length ? (
          <ul>
            {s.ticket.others.value.map((o) => (
              <li key={o.id}>
                <a href={`/console/tickets/${o.id}${listQuery}`}>
                  <span class="number">#{o.number}</span> {o.subject}
                </a>
                <span class="other-meta">
                  <StatusBadge status={o.status} />
                  <time dateTime={o.created_at}>{relative(o.created_at, locale)}</time>
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{t.noOtherTickets}</p>
        )}
      </section>
      <CustomerNotes />
      <div class="more-actions" role="group" aria-label={t.moreActions}>
        <button type="button" class="btn" onClick={() => (dialog.value = 'merge')}>
          {t.merge}
        </button>
        <button type="button" class="btn danger" onClick={() => (dialog.value = 'spam')}>
          {t.spam}
        </button>
      </div>
      {dialog.value === 'merge' && <MergeDialog ticket={ticket} onClose={() => (dialog.value = null)} />}
      {dialog.value === 'spam' && <SpamDialog ticket={ticket} onClose={() => (dialog.value = null)} />}
    </aside>
  );
}

/** The team's notes about the customer (not the ticket): any agent adds one or changes one in place. */
function CustomerNotes() {
  const s = useStore();
  const t = s.t.value;
  const notes = s.ticket.customerNotes.value;
  const editing = useSignal<string | null>(null);
  const text = useSignal('');
  const busy = useSignal(false);
  const save = async (e: Event) => {
    e.preventDefault();
    if (!text.value.trim() || busy.value) return;
    busy.value = true;
    if (await s.ticket.saveCustomerNote(text.value.trim(), editing.value ?? undefined)) {
      text.value = '';
      editing.value = null;
    }
    busy.value = false;
  };
  return (
    <section class="customer-notes" aria-labelledby="customer-notes-title">
      <h3 id="customer-notes-title">{t.customerNotes}</h3>
      {notes.length ? (
        <ul>
          {notes.map((n) => (
            <li key={n.id}>
              <p>{n.text}</p>
              <p class="other-meta">
                {n.author ?? t.support} · <time dateTime={n.updated_at}>{relative(n.updated_at, s.locale.value)}</time>{' '}
                <button
                  type="button"
                  class="btn small ghost"
                  onClick={() => {
                    editing.value = n.id;
                    text.value = n.text;
                  }}
                >
                  {t.edit}
                </button>
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t.noCustomerNotes}</p>
      )}
      <form onSubmit={save}>
        <label for="customer-note">{editing.value ? t.editCustomerNote : t.addCustomerNote}</label>
        <textarea
          id="customer-note"
          rows={2}
          maxLength={5000}
          value={text.value}
          onInput={(e) => (text.value = e.currentTarget.value)}
        />
        <button type="submit" class="btn small" disabled={busy.value || !text.value.trim()}>
          {t.saveCustomerNote}
        </button>
      </form>
    </section>
  );
}
