import { signal, computed } from '@preact/signals';
import { ApiError, createApi, type Article } from '../api/client.js';
import { fill, strings } from '../i18n/t.js';
import type { KbListItem, Meta, PanelContext, PublicTicket } from '../types.js';
import { loadSaved, storeSaved, type SavedTicket } from './saved-tickets.js';

export type View =
  { name: 'home' } | { name: 'new' } | { name: 'thread'; id: string; email: string } | { name: 'article'; id: string };

const uuid = () => crypto.randomUUID();

/**
 * The panel's state (signals, data only) and its actions (the only callers of the API). One store per
 * mounted panel; components read signals and call actions.
 */
export function createStore(ctx: PanelContext) {
  const api = createApi(ctx.api, ctx.apiKey);
  const t = strings(ctx.locale);
  const publicKey = ctx.apiKey;

  const view = signal<View>({ name: 'home' });
  const history: View[] = [];
  const identity = signal({ ...ctx.identity });
  const prefill = signal({ ...ctx.prefill });
  const saved = signal<SavedTicket[]>(loadSaved(publicKey));
  const meta = signal<Meta | null>(null);
  const ticket = signal<PublicTicket | null>(null);
  const ticketError = signal<string | null>(null);
  const announcement = signal('');
  let etag: string | undefined;

  const closedStatuses = computed(() => new Set((meta.value?.statuses ?? []).filter((s) => s.closed).map((s) => s.id)));
  const isClosed = computed(() => Boolean(ticket.value && closedStatuses.value.has(ticket.value.status)));

  /** A message for people from an API error, in the widget's language where we know better. */
  const describe = (err: unknown) =>
    err instanceof ApiError ? (err.status === 0 ? t.networkError : err.message) : t.networkError;

  function go(next: View) {
    history.push(view.value);
    view.value = next;
  }
  function back() {
    view.value = history.pop() ?? { name: 'home' };
  }

  async function loadMeta() {
    meta.value ??= await api.meta().catch(() => null);
  }

  async function openTicket(id: string, email: string) {
    ticket.value = null;
    ticketError.value = null;
    etag = undefined;
    go({ name: 'thread', id, email });
    void loadMeta();
    await refresh(id, email);
  }

  /** Reloads the open ticket if it changed (If-None-Match); announces new replies from support. */
  async function refresh(id: string, email: string) {
    try {
      const result = await api.ticket(id, email, etag);
      if (!result) return;
      const before = ticket.value?.id === id ? ticket.value.replies.filter((r) => !r.from_customer).length : null;
      etag = result.etag;
      ticket.value = result.ticket;
      const after = result.ticket.replies.filter((r) => !r.from_customer).length;
      if (before !== null && after > before) announcement.value = t.newReply;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) ticketError.value = t.notFound;
      else if (!ticket.value) ticketError.value = describe(err);
    }
  }

  function remember(created: PublicTicket) {
    saved.value = [
      { id: created.id, email: created.email, subject: created.subject, created_at: created.created_at },
      ...saved.value.filter((s) => s.id !== created.id),
    ];
    storeSaved(publicKey, saved.value);
  }

  /** Sends a new ticket; the caller keeps the idempotency key until it succeeds, so a retry is safe. */
  async function createTicket(form: FormData, idempotencyKey: string) {
    const created = await api.create(form, idempotencyKey);
    remember(created);
    identity.value = { name: created.name, email: created.email };
    prefill.value = {};
    ctx.emit('ticket:created', { id: created.id });
    history.length = 0;
    view.value = { name: 'thread', id: created.id, email: created.email };
    etag = undefined;
    ticket.value = created;
    ticketError.value = null;
    announcement.value = t.created;
    void loadMeta();
    return created;
  }

  async function sendReply(message: string, files: File[], idempotencyKey: string) {
    const current = ticket.value!;
    const email = current.email;
    let next = await api.reply(current.id, email, message, idempotencyKey);
    const replyId = next.replies.at(-1)?.id;
    for (const f of files) await api.upload(current.id, email, f, replyId);
    if (files.length) next = (await api.ticket(current.id, email))?.ticket ?? next;
    ticket.value = next;
    etag = undefined;
    ctx.emit('reply:sent', { id: current.id });
  }

  async function requestClose() {
    const current = ticket.value!;
    ticket.value = await api.closeRequest(current.id, current.email);
  }

  async function rate(score: number) {
    const current = ticket.value!;
    ticket.value = await api.rate(current.id, current.email, score);
    ctx.emit('rated', { id: current.id, score });
  }

  function forget() {
    saved.value = [];
    storeSaved(publicKey, []);
  }

  const searchKb = (q: string): Promise<KbListItem[]> =>
    q.trim().length < 2 ? Promise.resolve([]) : api.kb(q).catch(() => []);
  const loadArticle = (id: string): Promise<Article> => api.article(id);

  return {
    t,
    fill,
    ctx,
    config: ctx.config,
    view,
    identity,
    prefill,
    saved,
    meta,
    ticket,
    ticketError,
    announcement,
    isClosed,
    uuid,
    describe,
    go,
    back,
    loadMeta,
    openTicket,
    refresh,
    createTicket,
    sendReply,
    requestClose,
    rate,
    forget,
    searchKb,
    loadArticle,
  };
}

export type Store = ReturnType<typeof createStore>;
