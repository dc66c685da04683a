import { signal } from '@preact/signals';
import { ApiError, createApi, type Article, type Watched } from '../api/client.js';
import { identityHeader } from '../identity-header.js';
import type { Strings } from '../i18n/en.js';
import { plural, type Plural } from '../i18n/plural.js';
import { fill, isRtl, localeOf } from '../i18n/t.js';
import type { Attachment, KbListItem, Meta, PanelContext, PublicTicket } from '../types.js';
import {
  dropDrafts,
  loadMe,
  loadNewDraft,
  loadReplyDraft,
  saveNewDraft,
  saveReplyDraft,
  type NewDraft,
} from './drafts.js';
import { loadSaved, storeSaved, type SavedTicket } from './saved-tickets.js';

export type View =
  { name: 'home' } | { name: 'new' } | { name: 'thread'; id: string; email: string } | { name: 'article'; id: string };

const uuid = () => crypto.randomUUID();

// The server's default status names (server/src/model/portal.ts, DEFAULT_STATUSES): a status still
// called so is shown in the widget's language; one the owner renamed shows its own name.
const DEFAULT_NAMES: Record<string, string> = {
  open: 'Open',
  pending: 'Pending',
  answered: 'Answered',
  closed: 'Closed',
};

/** The image types the server accepts (files/check-file.ts): these get a thumbnail. */
const IMAGE = /^image\/(jpeg|png|gif|webp)$/;
export const isImage = (a: Attachment) => IMAGE.test(a.type);

/**
 * The panel's state (signals, data only) and its actions (the only callers of the API). One store per
 * mounted panel; components read signals (each re-renders when one it read changes) and call actions.
 */
export function createStore(ctx: PanelContext, t: Strings) {
  const api = createApi(ctx.api, ctx.apiKey, () => identityHeader(ctx.identity), ctx.locale);
  const publicKey = ctx.apiKey;
  /** The language of the strings (lang=…), and whether it is written right to left. */
  const lang = localeOf(ctx.locale);
  const rtl = isRtl(ctx.locale);
  const count = (forms: Plural, n: number) => plural(ctx.locale, forms, n);
  // The shop's own words (title, greeting, topics, their fields) in the visitor's language, where given.
  const { design, categories } = ctx.config;
  const config = {
    ...ctx.config,
    design: { ...design, ...design.translations?.[lang as 'en'] },
    categories: categories.map((c) => {
      const tr = c.translations?.[lang as 'en'];
      return { ...c, ...tr, fields: c.fields.map((f) => ({ ...f, ...tr?.fields?.[f.id] })) };
    }),
  };

  const view = signal<View>({ name: 'home' });
  const history: View[] = [];
  const identity = signal({ ...ctx.identity });
  const prefill = signal({ ...ctx.prefill });
  const saved = signal<SavedTicket[]>(loadSaved(publicKey));
  // Reply drafts of tickets no longer remembered here go (the list keeps the newest 50).
  dropDrafts(
    publicKey,
    saved.value.map((x) => x.id),
  );
  /** The ticket just filed from this panel: its thread opens with a confirmation. */
  const justCreated = signal<string | null>(null);
  const meta = signal<Meta | null>(null);
  const ticket = signal<PublicTicket | null>(null);
  const ticketError = signal<string | null>(null);
  const announcement = signal('');
  /** The knowledge-base search as typed: kept while the customer reads an article and comes back. */
  const query = signal('');
  /** "Your tickets" with status, last activity and unread replies (GET /updates); null until loaded. */
  const overview = signal<Watched[] | null>(null);
  let etag: string | undefined;

  /** A status in the widget's language, unless the owner renamed it. */
  const statusName = (id: string) => {
    const status = meta.value?.statuses.find((x) => x.id === id);
    return status && status.name !== DEFAULT_NAMES[id] ? status.name : (t.statuses[id] ?? id);
  };

  const isClosed = () =>
    Boolean(ticket.value && meta.value?.statuses.some((s) => s.closed && s.id === ticket.value!.status));

  /** A message for people from an API error, in the widget's language where we know better. */
  const describe = (err: unknown) =>
    err instanceof ApiError ? (err.status === 0 ? t.networkError : err.message) : t.networkError;

  function go(next: View) {
    history.push(view.value);
    view.value = next;
    justCreated.value = null;
  }
  function back() {
    view.value = history.pop() ?? { name: 'home' };
    justCreated.value = null;
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
    if (!id) return; // a link that opened nothing: its error stays
    try {
      const result = await api.ticket(id, email, etag);
      if (!result) return;
      const before = ticket.value?.id === id ? ticket.value.replies.filter((r) => !r.from_customer).length : null;
      etag = result.etag;
      ticket.value = result.ticket;
      const after = result.ticket.replies.filter((r) => !r.from_customer).length;
      if (before !== null && after > before) announcement.value = t.newReply;
      // Shown, so read: remembered with the number seen, which takes the launcher's badge down.
      if (saved.value.find((x) => x.id === id)?.seen !== after) remember(result.ticket, after);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) ticketError.value = t.notFound;
      else if (!ticket.value) ticketError.value = describe(err);
    }
  }

  function remember(x: PublicTicket, seen: number) {
    const entry = { id: x.id, email: x.email, subject: x.subject, created_at: x.created_at, seen };
    const i = saved.value.findIndex((s) => s.id === x.id);
    saved.value = i < 0 ? [entry, ...saved.value] : saved.value.map((s, j) => (j === i ? entry : s));
    storeSaved(publicKey, saved.value);
    ctx.seen();
  }

  /** Status, last activity and unread replies of "Your tickets" (and of a verified customer's others). */
  async function loadOverview() {
    overview.value = await api.updates(saved.value).catch(() => null);
  }

  /** Sends a new ticket; the caller keeps the idempotency key until it succeeds, so a retry is safe. */
  async function createTicket(form: FormData, idempotencyKey: string) {
    const created = await api.create(form, idempotencyKey);
    remember(created, 0);
    saveNewDraft(publicKey, {}, { name: created.name, email: created.email });
    identity.value = { name: created.name, email: created.email };
    prefill.value = {};
    ctx.emit('ticket:created', { id: created.id });
    history.length = 0;
    view.value = { name: 'thread', id: created.id, email: created.email };
    etag = undefined;
    ticket.value = created;
    ticketError.value = null;
    announcement.value = t.created;
    justCreated.value = created.id;
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
    saveReplyDraft(publicKey, current.id, '');
    ctx.emit('reply:sent', { id: current.id });
  }

  async function requestClose() {
    const current = ticket.value!;
    ticket.value = await api.closeRequest(current.id, current.email);
  }

  async function rate(score: number, comment: string) {
    const current = ticket.value!;
    ticket.value = await api.rate(current.id, current.email, score, comment.trim());
    ctx.emit('rated', { id: current.id, score });
  }

  /** A link from a mail: its ticket opens (and is remembered here once shown). */
  if (ctx.link)
    api.link(ctx.link).then(
      (x) => void openTicket(x.ticket_id, x.email),
      (err: unknown) => {
        go({ name: 'thread', id: '', email: '' });
        ticketError.value = err instanceof ApiError && err.status === 403 ? t.linkInvalid : describe(err);
      },
    );

  /** Forgets this device's tickets and every draft with them. */
  function forget() {
    saved.value = [];
    overview.value = null;
    storeSaved(publicKey, []);
    ctx.seen();
    dropDrafts(publicKey);
  }

  // Attachments: fetched with the key (a link cannot carry it), handed to the browser as object URLs.
  const images = new Map<string, Promise<string>>();
  const downloads = new Map<ReturnType<typeof setTimeout>, string>();
  const fetchFile = (a: Attachment) => api.file(a.ticket_id, ticket.value!.email, a.id);

  /** An object URL of an image attachment, for its thumbnail; one fetch per file while the panel lives. */
  function thumbnail(a: Attachment): Promise<string> {
    let url = images.get(a.id);
    if (!url) {
      url = fetchFile(a).then((blob) => URL.createObjectURL(blob));
      url.catch(() => images.delete(a.id));
      images.set(a.id, url);
    }
    return url;
  }

  /** Saves an attachment under its own name: an object URL, clicked as a download link, then revoked. */
  async function download(a: Attachment) {
    const url = isImage(a) ? await thumbnail(a) : URL.createObjectURL(await fetchFile(a));
    const link = document.createElement('a');
    link.href = url;
    link.download = a.name;
    link.hidden = true;
    ctx.root.append(link);
    link.click();
    link.remove();
    // A thumbnail's URL lives on with it; this one only until the browser has taken the download.
    if (!isImage(a)) {
      const timer = setTimeout(() => {
        URL.revokeObjectURL(url);
        downloads.delete(timer);
      }, 10_000);
      downloads.set(timer, url);
    }
  }

  /** Frees what the panel holds outside the DOM: object URLs and their timers. */
  function dispose() {
    for (const url of images.values()) void url.then(URL.revokeObjectURL, () => {});
    images.clear();
    for (const [timer, url] of downloads) {
      clearTimeout(timer);
      URL.revokeObjectURL(url);
    }
    downloads.clear();
  }

  const searchKb = (q: string): Promise<KbListItem[]> =>
    q.trim().length < 2 ? Promise.resolve([]) : api.kb(q).catch(() => []);
  /** The articles the home view lists before anything is searched; asked for once. */
  const articles = signal<KbListItem[]>([]);
  const loadArticles = () =>
    void (
      articles.value.length ||
      api.kb('').then(
        (l) => (articles.value = l),
        () => {},
      )
    );
  const loadArticle = (id: string): Promise<Article> => api.article(id);

  return {
    t,
    fill,
    count,
    lang,
    rtl,
    ctx,
    config,
    view,
    identity,
    prefill,
    saved,
    meta,
    ticket,
    ticketError,
    announcement,
    overview,
    loadOverview,
    statusName,
    justCreated,
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
    articles,
    loadArticles,
    loadArticle,
    thumbnail,
    download,
    dispose,
    query,
    loadNewDraft: () => loadNewDraft(publicKey),
    loadMe: () => loadMe(publicKey),
    saveNewDraft: (draft: NewDraft) => saveNewDraft(publicKey, draft),
    loadReplyDraft: (id: string) => loadReplyDraft(publicKey, id),
    saveReplyDraft: (id: string, text: string) => saveReplyDraft(publicKey, id, text),
  };
}

export type Store = ReturnType<typeof createStore>;
