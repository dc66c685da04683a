import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { ApiError } from './errors.js';
import { discardBody } from './refused-body.js';
import { readMultipart, setField, type UploadedFile, MAX_FIELDS_BYTES } from './multipart.js';

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: UploadedFile[];
}

export interface BodyOptions {
  /** JSON only (the management endpoint). */
  jsonOnly?: boolean;
  /** Multipart only (/upload). */
  multipartOnly?: boolean;
  /** Field names that may carry files, and how many. Without it, multipart bodies carry no files. */
  files?: { fields: string[]; max: number };
}

function mediaType(ctx: Context): string {
  return (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * JSON.parse that drops `__proto__` keys: JSON.parse makes them plain own properties, but a later
 * step that copied them onto an object would set its prototype. `constructor` and `prototype` are
 * ordinary names (a custom field may be called that) and are kept.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

/**
 * Reads the body of a POST or DELETE in whichever encoding API.md allows for the endpoint. Called by
 * handlers after the key is checked, never before (check order: route, key, permission, body).
 */
export async function readBody(ctx: Context, opts: BodyOptions = {}): Promise<ParsedBody> {
  const type = mediaType(ctx);
  const length = Number(ctx.get('Content-Length') || 0);
  const hasBody = length > 0 || ctx.get('Transfer-Encoding') !== '';

  if (type === 'multipart/form-data') {
    if (opts.jsonOnly) throw unsupported('application/json');
    return readMultipart(ctx, { fileFields: opts.files?.fields ?? [], maxFiles: opts.files?.max ?? 0 });
  }
  if (opts.multipartOnly) throw unsupported('multipart/form-data');
  if (!hasBody && !type) return { fields: {}, files: [] };

  const isJson = type === 'application/json' || type.endsWith('+json');
  const isForm = type === 'application/x-www-form-urlencoded';
  if (!isJson && !(isForm && !opts.jsonOnly)) {
    throw unsupported(
      opts.jsonOnly ? 'application/json' : 'application/json, application/x-www-form-urlencoded or multipart/form-data',
    );
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, {
      limit: MAX_FIELDS_BYTES,
      length: ctx.get('Content-Length') || undefined,
      encoding: 'utf8',
    });
  } catch (err) {
    // The 413 (and raw-body's other refusals) must reach a client that is still sending.
    await discardBody(ctx);
    throw err;
  }
  if (isForm) {
    const fields: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(text)) setField(fields, k, v);
    return { fields, files: [] };
  }
  if (text.trim() === '') return { fields: {}, files: [] };
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError(400, 'validation_failed', 'The body must be a JSON object.', { param: 'body' });
  }
  return { fields: parsed as Record<string, unknown>, files: [] };
}

const unsupported = (expected: string) => new ApiError(415, 'unsupported_media_type', `Send the body as ${expected}.`);
