import { batch, computed, effect, signal } from '@preact/signals';
import { ApiError, createApi } from '../api/client.js';
import type { Macro, Meta, SavedView, Session, TagDef, TeamAgent } from '../api/types.js';
import { fill, LOCALES } from '../i18n/t.js';
import { createInbox } from './inbox.js';
import { createLive } from './live.js';
import { createPrefs } from './prefs.js';
import { createTicket } from './ticket.js';
import { createToasts } from './toasts.js';

/** The default statuses of a portal (server/src/model/portal.ts): their English names and our keys. */
const BUILT_IN_STATUSES: Record<
  string,
  [string, 'status_open' | 'status_pending' | 'status_answered' | 'status_closed']
> = {
  open: ['Open', 'status_open'],
  pending: ['Pending', 'status_pending'],
  answered: ['Answered', 'status_answered'],
  closed: ['Closed', 'status_closed'],
};

export interface StoreOptions {
  /** The API base; by default this origin's /v1. */
  base?: string;
  /** How long a reply waits for Undo before it is sent. */
  undoMs?: number;
}

/**
 * The console's state (signals, data only) and its actions (the only callers of the API). Components
 * read signals and call actions; one store per mounted app.
 */
export function createStore(options: StoreOptions = {}) {
  const prefs = createPrefs();
  const toasts = createToasts();
  /** undefined: not asked yet; null: nobody signed in. */
  const session = signal<Session | null | undefined>(undefined);
  /** Why the sign-in screen is shown (the session ended elsewhere). */
  const signInNotice = signal('');
  const locale = computed(() => prefs.localeFor(session.value?.agent.locale));
  const t = computed(() => LOCALES[locale.value]);
  const me = computed(() => session.value?.agent ?? null);
  const mustChangePassword = computed(() => Boolean(session.value?.agent.must_change_password));

  const api = createApi(options.base ?? `${location.origin}/v1`, {
    signedOut() {
      if (!session.value) return;
      signInNotice.value = t.value.signedOutElsewhere;
      ended();
    },
    passwordChangeRequired() {
      const s = session.value;
      if (s && !s.agent.must_change_password)
        session.value = { ...s, agent: { ...s.agent, must_change_password: true } };
    },
  });

  /** A message for people from an API error. */
  const describe = (err: unknown) => (err instanceof ApiError && err.status !== 0 ? err.message : t.value.networkError);

  // --- what the portal offers: statuses, categories, agents, macros, tags ------------------------
  const meta = signal<Meta | null>(null);
  /** Everyone of /team, inactive agents too: their names still label old tickets and activity. */
  const team = signal<TeamAgent[]>([]);
  /** The colleagues one may assign to. */
  const agents = computed(() => team.value.filter((a) => a.active));
  const macros = signal<Macro[]>([]);
  const tagDefs = signal<TagDef[]>([]);
  /** The status a reply sets when the agent picks none (/admin r=workflow, read through /team). */
  const replyStatus = signal<string | null>('pending');
  /**
   * A status as the agent reads it: the portal's own name, except that the built-in statuses, still
   * under their English default names, are said in the console's language.
   */
  const statusName = (id: string) => {
    const name = meta.value?.statuses.find((s) => s.id === id)?.name ?? id;
    const own = BUILT_IN_STATUSES[id];
    return own && own[0] === name ? t.value[own[1]] : name;
  };
  const isClosed = (id: string) => Boolean(meta.value?.statuses.find((s) => s.id === id)?.closed);
  /** A colleague's name; never their id (an agent removed since, or not loaded yet: "Someone"). */
  const agentName = (id: string | null | undefined) =>
    !id ? null : id === me.value?.id ? me.value.name : (team.value.find((a) => a.id === id)?.name ?? t.value.someone);

  /** /team (any role may read it) and /meta (the priorities); again whenever settings change them. */
  async function loadCatalog() {
    const [m, tm] = await Promise.allSettled([api.meta(), api.team()]);
    batch(() => {
      if (m.status === 'fulfilled') meta.value = m.value;
      if (tm.status === 'fulfilled') {
        team.value = tm.value.agents;
        macros.value = tm.value.macros;
        tagDefs.value = tm.value.tags;
        replyStatus.value = tm.value.reply_status;
      }
    });
  }

  const inbox = createInbox(api);
  const ticket = createTicket({
    api,
    inbox,
    toasts,
    t: () => t.value,
    describe,
    undoMs: options.undoMs ?? 5000,
  });

  const live = createLive(api, {
    ticket(type, { ticket: row, by, mentioned }) {
      if (type === 'ticket.deleted') inbox.remove(row.id);
      else inbox.patch(row);
      // Assigned to a colleague invited since this console loaded /team: learn their name.
      if (row.agent_id && row.agent_id !== me.value?.id && !team.value.some((a) => a.id === row.agent_id))
        void loadCatalog();
      inbox.refreshSoon();
      if (ticket.id.value === row.id) {
        if (by?.id) ticket.stoppedTyping(row.id);
        void ticket.reload();
      }
      const byMe = by?.kind === 'agent' && by.id === me.value?.id;
      // A colleague named this agent in a note: a toast that opens it (and the desktop notification).
      if (type === 'ticket.mentioned') {
        if (byMe || !me.value || !mentioned?.includes(me.value.id)) return;
        const text = fill(t.value.mentionNotification, { name: by?.name ?? t.value.someone, number: row.number });
        toasts.show({ text, action: { label: t.value.mentionOpen, run: () => openTicketHook?.(row.id) } }, 15_000);
        notify(text, row);
        return;
      }
      // Desktop notifications: what this agent must answer, i.e. tickets that are theirs or nobody's,
      // and never for what they did themselves.
      const forMe = !row.agent_id || row.agent_id === me.value?.id;
      if (byMe || !forMe) return;
      if (type === 'ticket.created') notify(fill(t.value.newTicketNotification, { name: row.name }), row);
      else if (type === 'ticket.replied' && by?.kind !== 'agent' && row.last_message?.from_customer)
        notify(fill(t.value.customerReplyNotification, { name: row.name }), row);
    },
    typing({ ticket_id, agent }) {
      if (agent.id !== me.value?.id) ticket.someoneTyping(ticket_id, agent.name);
    },
    viewing({ ticket_id, agent }) {
      if (agent.id !== me.value?.id) ticket.someoneViewing(ticket_id, agent.id, agent.name);
    },
    reset() {
      // Back after a gap: settings (colleagues, macros, tags) may have changed meanwhile too.
      void loadCatalog();
      inbox.refreshSoon(0);
      void ticket.reload();
    },
    refused() {
      // A stream refused because the session ended: the session check signs out (api hook).
      api.session().catch(() => {});
    },
  });

  function notify(title: string, row: { id: string; subject: string }) {
    if (!prefs.notify.value || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (document.visibilityState === 'visible' && document.hasFocus()) return;
    const n = new Notification(title, { body: row.subject, tag: row.id });
    n.onclick = () => {
      window.focus();
      openTicketHook?.(row.id);
      n.close();
    };
  }
  let openTicketHook: ((id: string) => void) | undefined;

  // The tab's title counts the tickets that wait for a reply.
  const title = signal('');
  effect(() => {
    const waiting = inbox.counts.value?.views.needs_reply ?? 0;
    const base = title.value || t.value.appName;
    document.title = session.value && waiting ? fill(t.value.titleWaiting, { n: waiting, title: base }) : base;
  });
  effect(() => {
    document.documentElement.lang = locale.value;
  });

  // --- session ---------------------------------------------------------------------------------
  function started(s: Session) {
    batch(() => {
      session.value = s;
      signInNotice.value = '';
    });
    if (!s.agent.must_change_password) {
      void loadCatalog();
      void inbox.loadCounts();
      live.connect();
    }
  }
  function ended() {
    live.stop();
    batch(() => {
      session.value = null;
      meta.value = null;
      team.value = [];
      macros.value = [];
      tagDefs.value = [];
      inbox.rows.value = [];
      inbox.counts.value = null;
      ticket.close();
    });
  }

  async function restore() {
    try {
      started(await api.session());
    } catch (err) {
      if (err instanceof ApiError && err.status === 0) signInNotice.value = t.value.networkError;
      session.value = null;
    }
  }
  /** The password just used, while the server asks for a new one (the form then needs no retyping). */
  const oneTimePassword = signal('');
  async function signIn(email: string, password: string, code?: string) {
    const s = await api.signIn(code ? { email, password, code } : { email, password });
    oneTimePassword.value = s.agent.must_change_password ? password : '';
    started(s);
  }
  async function passkeySignIn() {
    // Loaded only when someone uses a passkey: most sign-ins never need it.
    const { startAuthentication } = await import('@simplewebauthn/browser');
    const optionsJSON = await api.passkeySignInOptions();
    const response = await startAuthentication({ optionsJSON });
    started(await api.passkeySignIn(response));
  }
  async function useLink(purpose: 'invite' | 'reset', token: string, password: string) {
    started(await api.useLink(purpose, token, password));
  }
  async function signOut() {
    await api.signOut().catch(() => {});
    ended();
  }
  async function changePassword(current: string, next: string) {
    const forced = mustChangePassword.value;
    await api.changePassword(current, next);
    oneTimePassword.value = '';
    const s = await api.session();
    if (forced) started(s);
    else session.value = s;
  }
  /** The agent's own inbox settings (density, saved views), kept in their profile on the server. */
  async function saveInboxPrefs(body: { density?: 'comfortable' | 'compact'; saved_views?: SavedView[] }) {
    try {
      session.value = await api.profile(body);
    } catch (err) {
      toasts.show({ text: describe(err), error: true });
    }
  }
  async function refreshSession() {
    const s = await api.session();
    session.value = s;
    return s;
  }

  return {
    api,
    prefs,
    toasts,
    session,
    signInNotice,
    me,
    mustChangePassword,
    locale,
    t,
    title,
    describe,
    meta,
    agents,
    macros,
    tagDefs,
    replyStatus,
    statusName,
    isClosed,
    agentName,
    loadCatalog,
    inbox,
    ticket,
    live,
    restore,
    signIn,
    oneTimePassword,
    passkeySignIn,
    useLink,
    signOut,
    changePassword,
    refreshSession,
    saveInboxPrefs,
    onOpenTicket(fn: (id: string) => void) {
      openTicketHook = fn;
    },
  };
}
export type Store = ReturnType<typeof createStore>;
