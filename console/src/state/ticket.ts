import { batch, signal } from '@preact/signals';
import { ApiError, type Api } from '../api/client.js';
import type { ConsoleReply, ConsoleTicket, CustomerNote, ListItem } from '../api/types.js';
import { fill, type Strings } from '../i18n/t.js';
import type { Inbox } from './inbox.js';
import { storage } from './prefs.js';
import type { Toasts } from './toasts.js';

/** How often an open ticket is announced to colleagues (agent.viewing). */
const VIEWING_EVERY_MS = 10_000;

/** What the reply box holds for one ticket; kept in localStorage across reloads (files are not). */
export interface Draft {
  text: string;
  internal: boolean;
  /** The macro whose text was inserted: the server applies its status and priority on send. */
  macro: string | null;
  /** "Send and set status": the status the ticket takes with the reply ("" keeps it). */
  status: string;
  /**
   * The newest message on screen when writing began: the reply answers that (seen_message_id), so a
   * message that arrives while the agent writes is shown to them before their reply goes out.
   */
  seen?: string | undefined;
}
const EMPTY: Draft = { text: '', internal: false, macro: null, status: '' };
const draftKey = (id: string) => `draft:${id}`;

function readDraft(id: string): Draft {
  try {
    const raw = JSON.parse(storage.read(draftKey(id)) ?? 'null') as Partial<Draft> | null;
    return raw && typeof raw.text === 'string' ? { ...EMPTY, ...raw } : EMPTY;
  } catch {
    return EMPTY;
  }
}

interface Deps {
  api: Api;
  inbox: Inbox;
  toasts: Toasts;
  t: () => Strings;
  describe: (err: unknown) => string;
  /** How long a reply is held before it is sent, for Undo. */
  undoMs: number;
}

/** The open ticket, its customer's other tickets, what is being typed into it, and sending. */
export function createTicket({ api, inbox, toasts, t, describe, undoMs }: Deps) {
  const id = signal<string | null>(null);
  const ticket = signal<ConsoleTicket | null>(null);
  const error = signal<unknown>(null);
  const others = signal<ListItem[]>([]);
  const customerNotes = signal<CustomerNote[]>([]);
  /** Polite announcements for screen readers (new messages on the open ticket). */
  const announcement = signal('');
  /** Who else is replying, by ticket id, until when (ms since the epoch). */
  const typing = signal<Record<string, { name: string; until: number }>>({});
  const drafts = signal<Record<string, Draft>>({});
  const files = signal<Record<string, File[]>>({});
  const sendError = signal<Record<string, string>>({});
  const pending = signal<Record<string, boolean>>({});
  const lastTyping = new Map<string, number>();
  /** Colleagues who have a ticket open (agent.viewing), by ticket id and agent id, until when. */
  const viewers = signal<Record<string, Record<string, { name: string; until: number }>>>({});
  /**
   * A reply the server refused because messages came in while it was written (409 ticket_changed):
   * those messages, by ticket id, shown above the kept draft until it is sent.
   */
  const conflicts = signal<Record<string, ConsoleReply[]>>({});
  let viewingTimer: ReturnType<typeof setInterval> | undefined;
  /**
   * Older replies of the open ticket loaded on request, oldest first, and what is still before them
   * (null: nothing). A read answers the newest page only; an answer to a change holds every reply.
   */
  const earlier = signal<ConsoleTicket['replies']>([]);
  const older = signal<{ count: number; cursor: string } | null>(null);
  const loadingOlder = signal(false);

  /**
   * Takes a ticket as read or changed. A page keeps what was on screen before it (older pages loaded,
   * or the whole thread an answer held), so nothing shown goes away when the newest page is read again.
   */
  function take(next: ConsoleTicket) {
    const prev = ticket.value?.id === next.id ? ticket.value : null;
    batch(() => {
      if (next.older_replies === undefined) {
        earlier.value = []; // the whole thread
        older.value = null;
      } else if (!prev) {
        earlier.value = [];
        older.value = next.older_replies;
      } else {
        const shown = new Set(next.replies.map((r) => r.id));
        earlier.value = [...earlier.value, ...prev.replies].filter((r) => !shown.has(r.id));
        if (!earlier.value.length) older.value = next.older_replies;
      }
      ticket.value = next;
    });
  }

  async function loadOlder() {
    const current = ticket.value;
    const before = older.value;
    if (!current || !before || loadingOlder.value) return;
    loadingOlder.value = true;
    try {
      const page = await api.ticket(current.id, before.cursor);
      if (ticket.value?.id !== current.id) return;
      const known = new Set([...earlier.value, ...current.replies].map((r) => r.id));
      batch(() => {
        earlier.value = [...page.replies.filter((r) => !known.has(r.id)), ...earlier.value];
        older.value = page.older_replies ?? null;
      });
    } catch (err) {
      toasts.show({ text: describe(err), error: true });
    } finally {
      loadingOlder.value = false;
    }
  }

  function announceNew(prev: ConsoleTicket | null, next: ConsoleTicket) {
    if (!prev || prev.id !== next.id) return;
    const known = new Set(prev.replies.map((r) => r.id));
    const added = next.replies.filter((r) => !known.has(r.id));
    const last = added[added.length - 1];
    if (last)
      announcement.value = fill(t().newMessage, {
        name: last.author ?? (last.from_customer ? next.name : t().support),
      });
  }

  async function reload() {
    const want = id.value;
    if (!want) return;
    try {
      const next = await api.ticket(want);
      if (id.value !== want) return;
      announceNew(ticket.value, next);
      batch(() => {
        take(next);
        error.value = null;
      });
    } catch (err) {
      if (id.value === want) error.value = err;
    }
  }

  /** The customer panel: their other tickets and the team's notes about them (GET /v1/customers). */
  async function loadOthers() {
    const current = ticket.value;
    if (!current) return;
    try {
      const found = await api.customer(current.email);
      if (id.value !== current.id) return;
      batch(() => {
        others.value = found.tickets.filter((r) => r.id !== current.id);
        customerNotes.value = found.notes;
      });
    } catch {
      others.value = [];
    }
  }
  /** Adds a note about the ticket's customer, or (with `noteId`) changes one; false when refused. */
  async function saveCustomerNote(text: string, noteId?: string) {
    const current = ticket.value;
    if (!current) return false;
    try {
      const saved = await api.customerNote({ email: current.email, text, ...(noteId ? { id: noteId } : {}) });
      if (id.value === current.id) customerNotes.value = saved.notes;
      return true;
    } catch (err) {
      toasts.show({ text: describe(err), error: true });
      return false;
    }
  }

  async function open(next: string) {
    if (id.value === next && ticket.value) return reload();
    batch(() => {
      id.value = next;
      ticket.value = null;
      error.value = null;
      others.value = [];
      customerNotes.value = [];
      earlier.value = [];
      older.value = null;
    });
    startViewing();
    await reload();
    await loadOthers();
  }
  function closeTicket() {
    clearInterval(viewingTimer);
    viewingTimer = undefined;
    id.value = null;
    ticket.value = null;
  }

  /** Tells colleagues (agent.viewing) that this agent has the ticket open: now, and every 10 s while it stays open. */
  function startViewing() {
    clearInterval(viewingTimer);
    const tell = () => {
      if (id.value && document.visibilityState === 'visible') api.viewing(id.value).catch(() => {});
    };
    tell();
    viewingTimer = setInterval(tell, VIEWING_EVERY_MS);
  }
  /** A colleague's agent.viewing: shown until it has not been heard again for a while. */
  function someoneViewing(ticketId: string, agentId: string, name: string) {
    const until = Date.now() + VIEWING_EVERY_MS * 2.5;
    viewers.value = { ...viewers.value, [ticketId]: { ...viewers.value[ticketId], [agentId]: { name, until } } };
    setTimeout(() => {
      const entry = viewers.value[ticketId]?.[agentId];
      if (entry?.until !== until) return;
      const { [agentId]: _gone, ...rest } = viewers.value[ticketId]!;
      viewers.value = { ...viewers.value, [ticketId]: rest };
    }, VIEWING_EVERY_MS * 2.5);
  }

  /** A change made here: show it at once, and let the lists catch up. */
  function applied(next: ConsoleTicket) {
    if (id.value === next.id) take(next);
    inbox.refreshSoon(0);
  }
  async function change(run: () => Promise<ConsoleTicket>) {
    try {
      applied(await run());
      return true;
    } catch (err) {
      toasts.show({ text: describe(err), error: true });
      return false;
    }
  }

  // --- the reply box -------------------------------------------------------------------------

  const draftFor = (ticketId: string) => drafts.value[ticketId] ?? readDraft(ticketId);
  /** The newest message of the ticket as shown (its own id for its opening message). */
  const newestShown = (ticketId: string) => {
    const shown = ticket.value?.id === ticketId ? ticket.value : null;
    return shown ? (shown.replies.at(-1)?.id ?? shown.id) : undefined;
  };
  function setDraft(ticketId: string, patch: Partial<Draft>, persist = true) {
    const next = { ...draftFor(ticketId), ...patch };
    if (!next.text) next.seen = undefined;
    else next.seen ??= newestShown(ticketId);
    drafts.value = { ...drafts.value, [ticketId]: next };
    if (persist) storage.write(draftKey(ticketId), next.text || next.macro ? JSON.stringify(next) : null);
    if (sendError.value[ticketId]) sendError.value = { ...sendError.value, [ticketId]: '' };
  }
  const filesFor = (ticketId: string) => files.value[ticketId] ?? [];
  const setFiles = (ticketId: string, list: File[]) => (files.value = { ...files.value, [ticketId]: list });

  /** Tells colleagues that this agent is writing, at most every 3 s (docs/api.md, /typing). */
  function typed(ticketId: string) {
    const now = Date.now();
    if (now - (lastTyping.get(ticketId) ?? 0) < 3000) return;
    lastTyping.set(ticketId, now);
    api.typing(ticketId).catch(() => {});
  }
  function someoneTyping(ticketId: string, name: string) {
    const until = Date.now() + 6000;
    typing.value = { ...typing.value, [ticketId]: { name, until } };
    setTimeout(() => {
      if (typing.value[ticketId]?.until === until) {
        const { [ticketId]: _gone, ...rest } = typing.value;
        typing.value = rest;
      }
    }, 6000);
  }
  function stoppedTyping(ticketId: string) {
    if (!typing.value[ticketId]) return;
    const { [ticketId]: _gone, ...rest } = typing.value;
    typing.value = rest;
  }

  /**
   * Sends the draft after `undoMs` (Undo puts it back). A failed send puts the text and files back and
   * says why; the stored draft is removed only once the server has the reply.
   */
  function send(ticketId: string, { force = false } = {}) {
    const draft = draftFor(ticketId);
    const attached = filesFor(ticketId);
    if (!draft.text.trim()) {
      sendError.value = { ...sendError.value, [ticketId]: t().required };
      return false;
    }
    // What the agent answered: the newest message when they began writing (the collision guard).
    const seen = draft.seen ?? newestShown(ticketId);
    if (conflicts.value[ticketId]) {
      const { [ticketId]: _done, ...rest } = conflicts.value;
      conflicts.value = rest;
    }
    const idempotencyKey = crypto.randomUUID();
    let cancelled = false;
    const restore = () =>
      batch(() => {
        setDraft(ticketId, draft);
        setFiles(ticketId, attached);
        pending.value = { ...pending.value, [ticketId]: false };
      });
    batch(() => {
      setDraft(ticketId, { ...EMPTY, internal: draft.internal }, false);
      setFiles(ticketId, []);
      pending.value = { ...pending.value, [ticketId]: true };
    });
    const toast = toasts.show(
      {
        text: draft.internal ? t().noteIn : t().sendingIn,
        action: {
          label: t().undo,
          run: () => {
            cancelled = true;
            clearTimeout(timer);
            restore();
          },
        },
      },
      undoMs,
    );
    // Every failure is caught inside and shown beside the reply box: the timer ignores the promise.
    const send = async () => {
      if (cancelled) return;
      toasts.dismiss(toast);
      try {
        const answer = await api.reply(
          {
            ticket_id: ticketId,
            message: draft.text,
            ...(draft.internal ? { internal: true } : {}),
            ...(!draft.internal && draft.status ? { status: draft.status } : {}),
            ...(!draft.internal && draft.macro ? { macro: draft.macro } : {}),
            ...(!draft.internal && seen ? (force ? { force: true } : { seen_message_id: seen }) : {}),
          },
          idempotencyKey,
        );
        // Reply first, then its files (/upload with reply_id): /reply takes no files.
        const added = [...answer.replies].reverse().find((r) => !r.from_customer && r.message === draft.text);
        const failed: File[] = [];
        for (const file of attached) {
          try {
            await api.upload(ticketId, file, added?.id);
          } catch (err) {
            failed.push(file);
            toasts.show({ text: fill(t().uploadFailed, { name: file.name, error: describe(err) }), error: true });
          }
        }
        if (readDraft(ticketId).text === draft.text) storage.write(draftKey(ticketId), null);
        batch(() => {
          pending.value = { ...pending.value, [ticketId]: false };
          if (failed.length) setFiles(ticketId, [...failed, ...filesFor(ticketId)]);
        });
        toasts.show({ text: draft.internal ? t().noteAdded : t().sent });
        applied(attached.length ? await api.ticket(ticketId) : answer);
      } catch (err) {
        restore();
        if (err instanceof ApiError && err.code === 'ticket_changed') {
          // The draft stays; the new messages show above it, and the thread catches up.
          conflicts.value = { ...conflicts.value, [ticketId]: err.messages };
          // Shown now: a plain Send answers them too.
          const newest = err.messages.at(-1)?.id;
          if (newest) setDraft(ticketId, { seen: newest });
          void reload();
          return;
        }
        sendError.value = { ...sendError.value, [ticketId]: fill(t().sendFailed, { error: describe(err) }) };
      }
    };
    const timer = setTimeout(() => void send(), undoMs);
    return true;
  }

  return {
    id,
    ticket,
    earlier,
    older,
    loadingOlder,
    loadOlder,
    error,
    others,
    customerNotes,
    saveCustomerNote,
    announcement,
    typing,
    viewers,
    conflicts,
    drafts,
    sendError,
    pending,
    open,
    close: closeTicket,
    reload,
    change,
    notFound: () => error.value instanceof ApiError && error.value.status === 404,
    draftFor,
    setDraft,
    filesFor,
    setFiles,
    typed,
    someoneTyping,
    someoneViewing,
    stoppedTyping,
    send,
  };
}
