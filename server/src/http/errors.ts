import type { Context } from 'koa';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { localizeError } from '../i18n/error-messages.js';
import { negotiate } from '../i18n/locales.js';
import { MODULE_FEATURES, type ModuleName, type Reply, type RequestActor } from '../model/index.js';
import { conflictingWrite, statementTimedOut, unavailableStore } from '../store/unavailable.js';

export interface ErrorDetail {
  param: string;
  message: string;
  /** What is wrong, for programs (the console says it in its language). */
  code?: DetailCode;
  /** The bound broken (too_long: the most characters; too_small: the least number), where there is one. */
  limit?: number;
  /** duplicate: the repeated value; invalid_format: the format (email, url, …). */
  value?: string;
}

/** The kinds of a detail (docs/api.md "Errors"); a detail without one says it only in `message`. */
type DetailCode =
  | 'required'
  | 'too_short'
  | 'too_long'
  | 'too_small'
  | 'too_big'
  | 'too_few'
  | 'too_many'
  | 'invalid_format'
  | 'invalid_choice'
  | 'invalid_type'
  | 'duplicate';

type Issue = ZodError['issues'][number];

/** A zod issue as a detail's code and bound: what the console needs to say it in its own language. */
function detailOf(i: Issue): Pick<ErrorDetail, 'code' | 'limit' | 'value'> {
  const bound = (n: unknown) => (typeof n === 'number' || typeof n === 'bigint' ? { limit: Number(n) } : {});
  switch (i.code) {
    case 'invalid_type':
      return { code: /received undefined/.test(i.message) ? 'required' : 'invalid_type' };
    case 'too_small':
      if (i.origin === 'string')
        return Number(i.minimum) === 1 ? { code: 'required' } : { code: 'too_short', ...bound(i.minimum) };
      return { code: i.origin === 'array' || i.origin === 'set' ? 'too_few' : 'too_small', ...bound(i.minimum) };
    case 'too_big':
      if (i.origin === 'string') return { code: 'too_long', ...bound(i.maximum) };
      return { code: i.origin === 'array' || i.origin === 'set' ? 'too_many' : 'too_big', ...bound(i.maximum) };
    case 'invalid_format':
      return { code: 'invalid_format', value: i.format };
    case 'invalid_value':
      return { code: 'invalid_choice' };
    case 'custom': {
      // Our own refinements name their kind in params (model/common.ts uniqueBy).
      const params = (i.params ?? {}) as { code?: unknown; value?: unknown };
      return params.code === 'duplicate' ? { code: 'duplicate', value: String(params.value) } : {};
    }
    default:
      return {};
  }
}

/** The one error type handlers throw; renderError turns it into API.md's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {
      param?: string;
      details?: ErrorDetail[];
      headers?: Record<string, string>;
      /** Named values a translated message fills in (`{origin}`). */
      values?: Record<string, string>;
      /** 409 ticket_changed: the messages the writer has not seen (model/errors.ts). */
      messages?: Reply[];
    } = {},
  ) {
    super(message);
  }
}

export const validationError = (param: string, message: string) =>
  new ApiError(400, 'validation_failed', `${param}: ${message}`, { param, details: [{ param, message }] });

export const notFound = (what: 'ticket' | 'file' | 'article' | 'agent' | 'resource', message?: string) =>
  new ApiError(404, `${what}_not_found`, message ?? `No such ${what}.`);

/** A module switched off, for a customer (support keeps every feature). */
export const moduleDisabled = (name: ModuleName, param?: string) =>
  new ApiError(403, 'module_disabled', `${MODULE_FEATURES[name]} is switched off.`, param ? { param } : {});

/** Turns zod issues into `details`, naming fields with dots (fields.order_id). */
export function fromZod(err: ZodError, at?: string): ApiError {
  const details = err.issues.map((i) => ({
    param: [...(at === undefined ? [] : [at]), ...i.path.map(String)].join('.') || 'body',
    message: i.message,
    ...detailOf(i),
  }));
  const first = details[0] ?? { param: 'body', message: 'Invalid request.' };
  return new ApiError(400, 'validation_failed', `${first.param}: ${first.message}`, {
    param: first.param,
    details,
  });
}

function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof ZodError) return fromZod(err);
  const e = err as { type?: string } | null;
  // The request is fine, the server's storage is not: a retry later can succeed.
  const store = unavailableStore(err);
  if (store === 'disk') {
    return new ApiError(503, 'unavailable', 'The server cannot store data right now. Try again shortly.', {
      headers: { 'Retry-After': '30' },
    });
  }
  if (store === 'database') {
    return new ApiError(503, 'unavailable', 'The database cannot be reached right now. Try again shortly.', {
      headers: { 'Retry-After': '5' },
    });
  }
  if (statementTimedOut(err)) {
    return new ApiError(503, 'unavailable', 'The database took too long to answer. Try again shortly.', {
      headers: { 'Retry-After': '5' },
    });
  }
  // Not retried here: a handler's work is not only its statements (postgres/migrations.ts, schema 8).
  if (conflictingWrite(err)) {
    return new ApiError(503, 'unavailable', 'The change crossed another one at the same time. Try again.', {
      headers: { 'Retry-After': '1' },
    });
  }
  // raw-body's errors carry a type.
  if (e?.type === 'entity.too.large') return new ApiError(413, 'payload_too_large', 'The body is larger than 1 MB.');
  if (e?.type === 'encoding.unsupported') return new ApiError(415, 'unsupported_media_type', 'Unsupported charset.');
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid') {
    return new ApiError(400, 'validation_failed', 'The request body was incomplete.');
  }
  return undefined;
}

/**
 * After a request's middleware: the 404/405 that the router leaves behind (no body) become errors in
 * the one shape of API.md, like any other.
 */
export function checkAnswered(ctx: Context): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 404) throw new ApiError(404, 'not_found', 'No such endpoint.');
  if (ctx.status === 405 || ctx.status === 501) {
    throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed here.`);
  }
}

/**
 * Renders an error a request's middleware threw, in the one shape of API.md (http/frame.ts catches
 * them all). Only 5xx are logged, with the request id.
 */
export function renderError(ctx: Context, err: unknown, logger: Logger): void {
  let api = toApiError(err);
  if (!api) {
    logger.error({ reqId: ctx.state.requestId, err }, 'unexpected error');
    api = new ApiError(500, 'internal_error', 'Something went wrong on our side.');
  } else if (statementTimedOut(err)) {
    // A slow statement, not a broken server: one warning per request, no stack.
    logger.warn({ reqId: ctx.state.requestId, code: api.code, method: ctx.method, path: ctx.path }, api.message);
  } else if (api.status >= 500 && unavailableStore(err) !== 'database') {
    // (A lost database is logged once by the Database when it goes and once when it is back.)
    logger.error({ reqId: ctx.state.requestId, code: api.code, err }, api.message);
  }
  ctx.status = api.status;
  for (const [k, v] of Object.entries(api.extra.headers ?? {})) ctx.set(k, v);
  // A customer reads the message (the widget shows it): in their language (Accept-Language, which
  // the widget sets to its own), once we know the request is a customer's. Codes stay as they are.
  const actor = ctx.state.actor as RequestActor | undefined;
  const locale = actor?.kind === 'customer' ? negotiate(ctx.get('Accept-Language')) : undefined;
  const { message, details } = locale
    ? localizeError(locale, api.code, api.message, api.extra.details, api.extra.values)
    : { message: api.message, details: api.extra.details };
  if (actor?.kind === 'customer') ctx.vary('Accept-Language');
  if (locale) ctx.set('Content-Language', locale);
  const body: Record<string, unknown> = { code: api.code, message };
  if (api.extra.param) body.param = api.extra.param;
  if (details) body.details = details;
  if (api.extra.messages) body.messages = api.extra.messages;
  ctx.body = { error: body };
}
