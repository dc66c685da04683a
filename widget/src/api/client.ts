import type { Article, Attachment, KbListItem, Meta, PublicTicket } from '../types.js';

/** A ticket as GET /updates lists it: status, last activity and what is unread. */
export interface Watched {
  id: string;
  subject: string;
  status: string;
  updated_at: string;
  unread: number;
}

export type { Article };

/** An answer from the API that is an error (status 0: the network failed). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly details: { param: string; message: string }[] = [],
  ) {
    super(message);
  }
}

/**
 * One function per endpoint the widget uses. The key travels in the Authorization header only,
 * never in a URL; no cookies are sent (the default credentials mode does not send them cross-origin).
 */
export function createApi(base: string, key: string, identity: () => string, locale: string) {
  async function send(method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) {
    let res: Response;
    const signed = identity();
    if (signed) headers['X-Ticketing-Identity'] = signed;
    // The server's error messages, and the mails of a ticket filed here, in the widget's language.
    headers['Accept-Language'] = locale;
    try {
      res = await fetch(base + path, { method, body, headers: { Authorization: `Bearer ${key}`, ...headers } });
    } catch {
      throw new ApiError(0, 'network', 'network');
    }
    return res;
  }
  async function call(method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) {
    const res = await send(method, path, body, headers);
    if (res.status === 304) return { res, data: null };
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const e = data?.error ?? {};
      throw new ApiError(res.status, e.code ?? 'error', e.message ?? res.statusText, e.param, e.details ?? []);
    }
    return { res, data };
  }
  const get = (path: string, query: Record<string, string> = {}, headers?: Record<string, string>) =>
    call('GET', `${path}?${new URLSearchParams(query)}`, undefined, headers);
  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    call('POST', path, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers }).then((r) => r.data);

  return {
    meta: () => get('/meta').then((r) => r.data as Meta),
    link: (token: string) => get('/link', { token }).then((r) => r.data as { ticket_id: string; email: string }),
    /** This browser's tickets (and a verified customer's) with status and unread replies, at once. */
    updates: (saved: { id: string; email: string; seen?: number }[]) =>
      call(
        'GET',
        `/updates?${new URLSearchParams(saved.map((t) => ['watch', `${t.id}:${t.seen ?? ''}:${t.email}`]))}`,
      ).then((r) => (r.data as { data: Watched[] }).data),
    /** Articles ranked for `q`; without one, the five most popular (the home view's list). */
    kb: (q: string) =>
      get('/kb', q ? { q } : { limit: '5', sort: 'popular' }).then(
        (r) => (r.data as { data?: KbListItem[] } | null)?.data ?? [],
      ),
    article: (id: string) => get('/kb', { id }).then((r) => r.data as Article),
    create: (form: FormData, idempotencyKey: string) =>
      call('POST', '/create', form, { 'Idempotency-Key': idempotencyKey }).then((r) => r.data as PublicTicket),
    /** Null when the ticket has not changed since `etag`. */
    ticket: async (id: string, email: string, etag?: string) => {
      const r = await get('/ticket', { id, email }, etag ? { 'If-None-Match': etag } : {});
      return r.data ? { ticket: r.data as PublicTicket, etag: r.res.headers.get('ETag') ?? undefined } : null;
    },
    reply: (ticket_id: string, email: string, message: string, idempotencyKey: string) =>
      post('/reply', { ticket_id, email, message }, { 'Idempotency-Key': idempotencyKey }) as Promise<PublicTicket>,
    upload: (ticket_id: string, email: string, file: File, reply_id?: string) => {
      const form = new FormData();
      form.append('ticket_id', ticket_id);
      form.append('email', email);
      if (reply_id) form.append('reply_id', reply_id);
      form.append('file', file);
      return call('POST', '/upload', form).then((r) => r.data as Attachment);
    },
    /**
     * An attachment's bytes. The key goes in the Authorization header, so a plain link cannot fetch
     * it: the widget fetches it and hands the browser a Blob.
     */
    file: async (ticket_id: string, email: string, file_id: string): Promise<Blob> => {
      const res = await send('GET', `/file?${new URLSearchParams({ ticket_id, file_id, email })}`);
      if (!res.ok) throw new ApiError(res.status, 'file', res.statusText);
      try {
        return await res.blob();
      } catch {
        throw new ApiError(0, 'network', 'network');
      }
    },
    closeRequest: (ticket_id: string, email: string) =>
      post('/close-request', { ticket_id, email }) as Promise<PublicTicket>,
    rate: (ticket_id: string, email: string, score: number, comment: string) =>
      post('/rate', { ticket_id, email, score, ...(comment ? { comment } : {}) }) as Promise<PublicTicket>,
  };
}
