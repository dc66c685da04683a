import { Markdown, PlainText } from '@ticketing/widget/text';
import type { ActivityEntry, Attachment, ConsoleReply, ConsoleTicket } from '../api/types.js';
import { fill, type Strings } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import type { Store } from '../state/store.js';
import { bytes, dateTime } from './format.js';
import { Avatar } from './bits.js';

type Item =
  | { kind: 'message'; at: string; id: string; reply: ConsoleReply }
  | { kind: 'activity'; at: string; id: string; entry: ActivityEntry };

/** The ticket's own message, its replies and notes, and what happened between them, oldest first. */
export function Thread({ ticket }: { ticket: ConsoleTicket }) {
  const s = useStore();
  const first: ConsoleReply = {
    id: ticket.id,
    message: ticket.message,
    ...(ticket.quoted ? { quoted: ticket.quoted } : {}),
    from_customer: true,
    author: ticket.name,
    created_at: ticket.created_at,
    attachments: ticket.attachments,
  };
  const replies = [...s.ticket.earlier.value, ...ticket.replies];
  const older = s.ticket.older.value;
  // With older replies not loaded, what happened before the first one shown waits with them.
  const from = older ? (replies[0]?.created_at ?? '') : '';
  const items: Item[] = [
    ...replies.map((r) => ({ kind: 'message' as const, at: r.created_at, id: r.id, reply: r })),
    ...(ticket.activity ?? [])
      .filter((a) => a.at >= from)
      .map((a) => ({ kind: 'activity' as const, at: a.at, id: a.id, entry: a })),
  ];
  // Stable: at the same moment a message comes before what it caused (a macro's status change).
  items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.kind === b.kind ? 0 : a.kind === 'message' ? -1 : 1));

  return (
    <section aria-labelledby="thread-title">
      <h2 id="thread-title" class="sr">
        {s.t.value.thread}
      </h2>
      <ol class="thread">
        <Message ticket={ticket} reply={first} />
        {older && (
          <li class="activity">
            <button
              type="button"
              class="btn small"
              disabled={s.ticket.loadingOlder.value}
              onClick={() => void s.ticket.loadOlder()}
            >
              {fill(s.t.value.olderMessages, { count: String(older.count) })}
            </button>
          </li>
        )}
        {items.map((item) =>
          item.kind === 'message' ? (
            <Message key={item.id} ticket={ticket} reply={item.reply} />
          ) : (
            <li key={item.id} class="activity">
              <span>{activityText(item.entry, ticket, s)}</span>{' '}
              <time dateTime={item.at}>{dateTime(item.at, s.locale.value)}</time>
            </li>
          ),
        )}
      </ol>
    </section>
  );
}

function Message({ ticket, reply }: { ticket: ConsoleTicket; reply: ConsoleReply }) {
  const s = useStore();
  const t = s.t.value;
  const kind = reply.internal ? 'note' : reply.unverified ? 'unverified' : reply.from_customer ? 'customer' : 'support';
  const who = reply.author ?? (reply.from_customer ? ticket.name : t.support);
  const label =
    kind === 'note'
      ? t.internalNote
      : kind === 'unverified'
        ? t.unverifiedLabel
        : kind === 'customer'
          ? t.fromCustomer
          : t.support;
  return (
    <li class={`msg msg-${kind}`}>
      <div class="msg-head">
        {reply.agent_id && <Avatar id={reply.agent_id} name={s.agentName(reply.agent_id) ?? who} />}
        <span class="author">{who}</span>
        <span class="kind">{label}</span>
        <time dateTime={reply.created_at}>{dateTime(reply.created_at, s.locale.value)}</time>
      </div>
      {/* A mail that only claims to be the customer's (issue 28): the customer never sees it. */}
      {kind === 'unverified' && (
        <p class="msg-warning" role="note">
          {fill(t.unverifiedSender, { email: ticket.email })}
        </p>
      )}
      {/* The customer's words as written (.plain keeps their line breaks and spaces), and so the words
          of a mail that claims to be theirs; agents' replies and notes are Markdown. */}
      {kind === 'customer' || kind === 'unverified' ? (
        <div class="plain">
          <PlainText source={reply.message} />
        </div>
      ) : (
        <Markdown source={reply.message} />
      )}
      {/* The quoted part of a mail, set aside from its message (issue 29): collapsed, as mail clients
          show it, and plain text like the customer's words. */}
      {reply.quoted && (
        <details class="quoted">
          <summary>{t.showQuoted}</summary>
          <div class="plain">
            <PlainText source={reply.quoted} />
          </div>
        </details>
      )}
      {reply.attachments.length > 0 && <Files ticketId={ticket.id} files={reply.attachments} />}
      {/* What became of the reply's mail to the customer (issue 30): a failed one is no longer invisible. */}
      {reply.delivery && (
        <p class={`delivery delivery-${reply.delivery.state}`}>
          {reply.delivery.state === 'failed' || reply.delivery.state === 'bounced'
            ? fill(reply.delivery.state === 'failed' ? t.mailFailed : t.mailBounced, {
                reason: reply.delivery.error ?? '',
              })
            : reply.delivery.state === 'sent'
              ? t.mailSent
              : t.mailQueued}
        </p>
      )}
    </li>
  );
}

function Files({ ticketId, files }: { ticketId: string; files: Attachment[] }) {
  const s = useStore();
  const t = s.t.value;
  return (
    <ul class="files" aria-label={t.attachments}>
      {files.map((f) => {
        const url = s.api.fileUrl(ticketId, f.id);
        return (
          <li key={f.id}>
            {f.type.startsWith('image/') && (
              <a href={url} download={f.name} class="thumb" aria-hidden="true" tabIndex={-1}>
                <img src={url} alt="" loading="lazy" />
              </a>
            )}
            <a href={url} download={f.name} aria-label={fill(t.download, { name: f.name })}>
              {f.name}
            </a>
            <span class="file-meta">
              {bytes(f.size, s.locale.value)} · {f.type.split(';')[0]}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

const str = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** One line of activity, in words. Unknown types are shown by name rather than hidden. */
function activityText(a: ActivityEntry, ticket: ConsoleTicket, s: Store): string {
  const t: Strings = s.t.value;
  const who =
    a.actor.name ??
    (a.actor.kind === 'system'
      ? t.system
      : a.actor.kind === 'customer'
        ? ticket.name
        : a.actor.id
          ? (s.agentName(a.actor.id) ?? t.someone)
          : t.someone);
  const type = a.type.replace(/^ticket\./, '');
  switch (type) {
    case 'status':
    case 'status_changed':
      return fill(t.act_status, { who, from: s.statusName(str(a.from)), to: s.statusName(str(a.to)) });
    case 'priority':
    case 'priority_changed':
      return fill(t.act_priority, { who, from: prio(t, a.from), to: prio(t, a.to) });
    case 'assignee':
    case 'assigned':
    case 'assign':
      return a.to ? fill(t.act_assign, { who, to: s.agentName(str(a.to))! }) : fill(t.act_unassign, { who });
    case 'tags': {
      // The server records the whole list before and after: say what was added and what removed.
      const before = list(a.from);
      const after = list(a.to);
      const added = after.filter((x) => !before.includes(x));
      const removed = before.filter((x) => !after.includes(x));
      return [
        added.length && fill(t.act_tag_added, { who, value: added.join(', ') }),
        removed.length && fill(t.act_tag_removed, { who, value: removed.join(', ') }),
      ]
        .filter(Boolean)
        .join('; ');
    }
    case 'close_request':
      // From who asked to nobody: answered; accepted when the status changed in the same moment.
      if (a.to) return fill(t.act_close_requested, { who });
      return fill(
        ticket.activity?.some((o) => o.type === 'status' && o.at === a.at)
          ? t.act_close_accepted
          : t.act_close_rejected,
        { who },
      );
    case 'tag_added':
    case 'tagged':
      return fill(t.act_tag_added, { who, value: str(a.value ?? a.to) });
    case 'tag_removed':
    case 'untagged':
      return fill(t.act_tag_removed, { who, value: str(a.value ?? a.from) });
    case 'close_requested':
      return fill(t.act_close_requested, { who });
    case 'close_resolved':
    case 'close_accepted':
    case 'close_rejected':
      return fill(type === 'close_rejected' || a.value === false ? t.act_close_rejected : t.act_close_accepted, {
        who,
      });
    case 'rated':
    case 'rating':
      return fill(t.act_rated, { who, value: str(a.value ?? a.to) });
    case 'merged':
    case 'merge':
      return fill(t.act_merged, { who, value: str(a.value ?? a.to ?? a.from) });
    case 'merged_from':
      return fill(t.act_merged_from, { who, value: str(a.from) });
    case 'spam':
    case 'marked_spam':
      return fill(t.act_spam, { who });
    case 'snoozed':
      return a.to
        ? fill(t.act_snoozed, { who, value: dateTime(str(a.to), s.locale.value) })
        : fill(t.act_woken, { who });
    default:
      return fill(t.act_other, { who, type });
  }
}

const list = (v: unknown) => (Array.isArray(v) ? v.map(str) : []);

const prio = (t: Strings, v: unknown) => {
  const key = `prio_${str(v)}` as keyof Strings;
  return key in t ? (t[key] as string) : str(v);
};
