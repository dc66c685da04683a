import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { BusinessHours, HoursNow, Rule, RulesTestResult } from '@ticketing/server/model';
import type { Locale } from '../i18n/t.js';
import type {
  BulkResult,
  ConsoleReply,
  BulkSet,
  ConsoleTicket,
  Counts,
  Customer,
  Meta,
  Passkey,
  Report,
  SavedView,
  Session,
  Team,
  ListItem,
  TicketList,
  TotpEnrolment,
} from './types.js';

/** An answer from the API that is an error (status 0: the network failed). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly details: { param: string; message: string }[] = [],
    /** Seconds, from Retry-After (429, 503). */
    readonly retryAfter?: number,
    /** 409 ticket_changed: the messages that came in since the one the reply named as seen. */
    readonly messages: ConsoleReply[] = [],
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | undefined | null>;
interface CallOptions {
  query?: Query;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

export interface ApiHooks {
  /** The session ended on the server (expired, signed out elsewhere, revoked). */
  signedOut?: () => void;
  /** The agent must choose a new password before anything else. */
  passwordChangeRequired?: () => void;
}

const search = (query: Query = {}) => {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}` : '';
};

/**
 * One function per endpoint the console uses. The session cookie goes along by itself (same origin);
 * every unsafe call carries the session's CSRF token.
 */
/** Replies a thread page holds: a ticket of hundreds of replies opens with its newest ones (issue 33). */
const THREAD_PAGE = 50;

export function createApi(base: string, hooks: ApiHooks = {}) {
  let csrf = '';

  async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
    let body: BodyInit | undefined;
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) body = opts.form;
    let res: Response;
    try {
      res = await fetch(`${base}${path}${search(opts.query)}`, {
        method,
        headers,
        body,
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError(0, 'network', 'network');
    }
    if (res.status === 204) return undefined as T;
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const e = data?.error ?? {};
      const retry = Number(res.headers.get('Retry-After'));
      const err = new ApiError(
        res.status,
        e.code ?? 'error',
        e.message ?? res.statusText,
        e.param,
        e.details ?? [],
        Number.isFinite(retry) && retry > 0 ? retry : undefined,
        Array.isArray(e.messages) ? e.messages : [],
      );
      if (err.code === 'not_signed_in' && path !== '/session') hooks.signedOut?.();
      if (err.code === 'password_change_required') hooks.passwordChangeRequired?.();
      throw err;
    }
    return data as T;
  }
  const get = <T>(path: string, query?: Query) => call<T>('GET', path, { query });
  const post = <T>(path: string, json: unknown = {}, headers?: Record<string, string>) =>
    call<T>('POST', path, { json, headers });
  const keepToken = (s: Session) => {
    csrf = s.csrf_token;
    return s;
  };

  return {
    base,
    setCsrf: (token: string) => void (csrf = token),
    /** Where a file of a ticket downloads from (the cookie authorises the GET). */
    fileUrl: (ticket_id: string, file_id: string) => `${base}/file${search({ ticket_id, file_id })}`,
    eventsUrl: () => `${base}/events`,

    session: () => get<Session>('/session').then(keepToken),
    signIn: (body: { email: string; password: string; code?: string }) =>
      post<Session>('/session', body).then(keepToken),
    signOut: () => call<void>('DELETE', '/session').finally(() => (csrf = '')),
    changePassword: (current_password: string, new_password: string) =>
      post<Session | undefined>('/session/password', { current_password, new_password }).then((s) =>
        s?.csrf_token ? keepToken(s) : s,
      ),
    /** The re-check some changes need (403 verification_required): the session goes on under a new id. */
    verify: (body: { password: string } | { code: string }) => post<Session>('/session/verify', body).then(keepToken),
    totpStart: () => post<TotpEnrolment>('/session/totp'),
    totpConfirm: (code: string) => post<{ recovery_codes: string[] }>('/session/totp/confirm', { code }),
    totpDisable: (code: string) => call<void>('DELETE', '/session/totp', { json: { code } }),
    passkeys: () => get<{ data: Passkey[] }>('/session/passkeys').then((r) => r.data),
    passkeyRegistrationOptions: () => post<PublicKeyCredentialCreationOptionsJSON>('/session/passkeys/options'),
    passkeyAdd: (response: unknown, name: string) =>
      post<{ passkey: Passkey }>('/session/passkeys', { response, name }).then((r) => r.passkey),
    passkeyRemove: (id: string) => call<void>('DELETE', '/session/passkeys', { query: { id } }),
    passkeySignInOptions: () => post<PublicKeyCredentialRequestOptionsJSON>('/session/passkey/options'),
    passkeySignIn: (response: unknown) => post<Session>('/session/passkey', { response }).then(keepToken),
    /** The agent's own name, signature (Markdown, under their replies) and availability for round robin. */
    profile: (body: {
      name?: string;
      signature?: string;
      available?: boolean;
      locale?: Locale | null;
      density?: 'comfortable' | 'compact';
      saved_views?: SavedView[];
    }) => call<Session>('PATCH', '/session/profile', { json: body }),
    forgot: (email: string) => post<{ accepted: true }>('/session/forgot', { email }),
    /** A mailed link's second half (invitation or reset): the password, then a new session. */
    useLink: (purpose: 'invite' | 'reset', token: string, password: string) =>
      post<Session>(`/session/${purpose}`, { token, password }).then(keepToken),

    meta: () => get<Meta>('/meta'),
    /** Colleagues, macros, tags, statuses, categories: what every agent may read, whatever their role. */
    team: () => get<Team>('/team'),
    customer: (email: string) => get<Customer>('/customers', { email }),
    /** A note about the customer; with `id`, a new text for that note. */
    customerNote: (body: { email: string; text: string; id?: string }) =>
      post<Pick<Customer, 'email' | 'notes'>>('/customers/notes', body),

    /** `/admin` for the settings screens: read `r`, replace it whole, delete one entry (agents, kb). */
    adminGet: <T>(r: string, query: Query = {}) =>
      get<Record<string, T>>('/admin', { ...query, r }).then((x) => x[r] as T),
    adminPost: <T>(r: string, body: unknown) => call<T>('POST', '/admin', { query: { r }, json: body }),
    adminDelete: (r: string, id: string) =>
      call<{ id: string; deleted: true }>('DELETE', '/admin', { query: { r, id } }),
    /** Rules tried on a stored ticket, nothing changed (the rules builder's test). */
    rulesTest: (body: { ticket_id: string; event: string; rules?: Rule[] }) =>
      post<RulesTestResult>('/rules/test', body),
    /** Open now? By the saved hours, or by hours being edited. */
    hoursNow: (business_hours?: BusinessHours) =>
      post<HoursNow>('/hours/now', business_hours ? { business_hours } : {}),
    /** The settings screens' actions beside `/admin` (POST /admin/mail-test, /admin/webhook-test, …). */
    adminAction: <T>(action: string, body: unknown) => post<T>(`/admin/${action}`, body),

    list: (query: Query) => get<TicketList>('/list', query),
    /** Every ticket, any status and view (the search box): by number, id, email, name, text or tag. */
    search: (query: { q: string; limit: number; cursor?: string | undefined }) =>
      get<{ data: ListItem[]; total: number; total_capped?: true; next_cursor: string | null }>('/search', query),
    counts: () => get<Counts>('/counts'),
    /** A ticket with the newest page of its thread (`older_replies` says what is before it), or an older page. */
    ticket: (id: string, before?: string) =>
      get<ConsoleTicket>('/ticket', {
        id,
        messages_limit: THREAD_PAGE,
        ...(before ? { messages_before: before } : {}),
      }),
    reply: (
      body: {
        ticket_id: string;
        message: string;
        internal?: boolean;
        status?: string;
        macro?: string;
        seen_message_id?: string;
        force?: boolean;
      },
      idempotencyKey: string,
    ) => post<ConsoleTicket>('/reply', body, { 'Idempotency-Key': idempotencyKey }),
    /** Out of Needs reply until `until` (ISO) or the customer's next message; null wakes it. */
    snooze: (ticket_id: string, until: string | null) => post<ConsoleTicket>('/snooze', { ticket_id, until }),
    upload: (ticket_id: string, file: File, reply_id?: string) => {
      const form = new FormData();
      form.append('ticket_id', ticket_id);
      if (reply_id) form.append('reply_id', reply_id);
      form.append('file', file);
      return call<unknown>('POST', '/upload', { form });
    },
    status: (ticket_id: string, status: string) => post<ConsoleTicket>('/status', { ticket_id, status }),
    priority: (ticket_id: string, priority: string) => post<ConsoleTicket>('/priority', { ticket_id, priority }),
    assign: (ticket_id: string, agent_id: string | null) => post<ConsoleTicket>('/assign', { ticket_id, agent_id }),
    changeTags: (ticket_id: string, change: { add?: string[]; remove?: string[] }) =>
      post<ConsoleTicket>('/tags', { ticket_id, ...change }),
    closeResolve: (ticket_id: string, accept: boolean) => post<ConsoleTicket>('/close-resolve', { ticket_id, accept }),
    merge: (ticket_id: string, into_id: string) => post<ConsoleTicket>('/merge', { ticket_id, into_id }),
    spam: (ticket_id: string, block?: 'email' | 'domain') =>
      post<ConsoleTicket>('/spam', block ? { ticket_id, block } : { ticket_id }),
    bulk: (ticket_ids: string[], set: BulkSet) => post<BulkResult>('/bulk', { ticket_ids, set }),
    typing: (ticket_id: string) => call<void>('POST', '/typing', { json: { ticket_id } }),
    viewing: (ticket_id: string) => call<void>('POST', '/viewing', { json: { ticket_id } }),

    report: (query: Query) => get<Report>('/reports', query),
    /** The same report as a CSV download (the cookie authorises the GET). */
    reportCsvUrl: (query: Query) => `${base}/reports${search({ ...query, format: 'csv' })}`,
  };
}

export type Api = ReturnType<typeof createApi>;
