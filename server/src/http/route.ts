import type { Context } from 'koa';
import type { z } from 'zod';
import type { Access, ModuleName, RequestActor } from '../model/index.js';
import type { UploadedFile } from './multipart.js';

/**
 * One endpoint, declared once: everything the router, the checks before the handler, CORS, the legacy
 * `.php` redirects and the OpenAPI document need to know of it (http/mount.ts, openapi/document.ts).
 */

export const API_PREFIX = '/v1';
export type Method = 'get' | 'post' | 'patch' | 'delete';
/** How a body may be sent: JSON, a urlencoded form, multipart/form-data. */
export type Encoding = 'json' | 'form' | 'multipart';
export type RequestHeader =
  'Idempotency-Key' | 'If-None-Match' | 'X-Ticketing-Identity' | 'Accept-Language' | 'Last-Event-ID';
export type ResponseHeader =
  'ETag' | 'Cache-Control' | 'Content-Disposition' | 'Content-Security-Policy' | 'Allow' | 'Set-Cookie';

export interface BodySpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  encodings: readonly Encoding[];
  /**
   * Multipart fields that may carry files (the first is the documented name), how many in all, and
   * whether one is required. Without it, a body carries no file.
   */
  files?: { fields: readonly string[]; max: number; required?: boolean };
  /** The body may be left out (DELETE /delete takes its ticket_id in the query as well). */
  optional?: boolean;
  /**
   * What the document shows, when the handler checks the body further by the query (/admin: the
   * resource `r` decides the body's shape); `schema` is then the loose check the route makes first.
   */
  documented?: z.ZodType;
}

/** A successful answer: its JSON schema, or other media types (a download). */
export interface AnswerSpec<S extends z.ZodType = z.ZodType> {
  description: string;
  schema?: S;
  /** Media types that are not JSON, with a JSON Schema of their content. */
  media?: Record<string, Record<string, unknown>>;
  headers?: readonly ResponseHeader[];
}

export type Answers = { [status: number]: AnswerSpec };

/** What a handler gets: the actor (null on open routes), the validated query and body, the files. */
export interface RouteRequest<A extends Access, Q, B> {
  actor: A extends 'open' ? null : RequestActor;
  query: Q;
  body: B;
  /** The body's fields as they arrived, before validation (what an Idempotency-Key fingerprints). */
  fields: Record<string, unknown>;
  files: UploadedFile[];
  /** The client's address (X-Forwarded-For only with TICKETING_TRUST_PROXY). */
  ip: string;
  /** The request's headers, lower-case names. */
  header(name: RequestHeader): string | undefined;
  /** Koa's context, for what no field above covers. */
  ctx: Context;
  /**
   * Whether the request's credential still holds, for the same actor, with the route's access: a
   * long-lived answer (/events) asks again every few seconds, so a revoked key, a signed-out or
   * deactivated agent or a changed password ends it. Records no use of the session.
   */
  credentialHolds(): Promise<boolean>;
}

type BodyOf<R extends Answers> = {
  [S in keyof R]: R[S] extends { schema: infer Z extends z.ZodType } ? z.output<Z> : never;
}[keyof R];

/**
 * What a handler answers. `status` defaults to the route's first declared answer; `etag` turns the
 * answer into a conditional one (If-None-Match gets 304 through Koa's ctx.fresh); `raw` is a body
 * already serialised (a cached ticket view) or a file, with its Content-Type.
 */
export interface Reply<R extends Answers = Answers> {
  status?: keyof R & number;
  body?: BodyOf<R>;
  raw?: { data: string | Uint8Array; type: string };
  etag?: string;
  headers?: Record<string, string>;
}

export interface RouteSpec<D, A extends Access, Q extends z.ZodType, B extends z.ZodType, R extends Answers> {
  method: Method;
  /** Below /v1, e.g. `/create`. */
  path: `/${string}`;
  access: A;
  summary: string;
  description?: string;
  /** The module switch: with it off, customers get 403 module_disabled (support keeps the feature). */
  module?: ModuleName;
  /** `create`: the ticket-creation limit applies to customers on top of the per-minute one. */
  rateLimit?: 'create';
  /** What the route stores of what it is sent: checked against free disk space and quotas first. */
  stores?: 'text' | 'files';
  query?: Q;
  body?: BodySpec<B>;
  requestHeaders?: readonly RequestHeader[];
  responses: R;
  /** Error codes this route answers beyond the ones every route of its kind has, by status. */
  errors?: { [status: number]: readonly string[] };
  handler: (req: RouteRequest<A, z.output<Q>, z.output<B>>, deps: D) => Promise<Reply<NoInfer<R>>>;
}

/** A route with its types erased, as lists hold it. */
export interface RouteDef<D = never> {
  method: Method;
  path: `/${string}`;
  access: Access;
  summary: string;
  description?: string;
  module?: ModuleName;
  rateLimit?: 'create';
  stores?: 'text' | 'files';
  query?: z.ZodType;
  body?: BodySpec;
  requestHeaders?: readonly RequestHeader[];
  responses: Answers;
  errors?: { [status: number]: readonly string[] };
  handler: (req: RouteRequest<Access, unknown, unknown>, deps: D) => Promise<Reply>;
}

/**
 * `const route = routeFor<FeatureDeps>()` gives a feature its route declarer: the handler's query and
 * body are typed from the schemas, its answer from the declared responses, and `deps` is what the
 * feature says it needs (the app's Deps must provide it).
 */
export const routeFor =
  <D>() =>
  <A extends Access, R extends Answers, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
    spec: RouteSpec<D, A, Q, B, R>,
  ): RouteDef<D> =>
    spec as unknown as RouteDef<D>;
