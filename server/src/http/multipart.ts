import busboy from 'busboy';
import type { Context } from 'koa';
import { ApiError } from './errors.js';
import { closeAfterAnswer } from './refused-body.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024; // 5,242,880: exactly this much is accepted
export const MAX_FIELDS_BYTES = 1024 * 1024;

export interface UploadedFile {
  field: string;
  filename: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, unknown>;
  files: UploadedFile[];
}

/**
 * Reads a multipart body with busboy. Unlike multer, which drains the whole request before it
 * reports an over-size file, this stops reading as soon as a file passes the limit: the answer is a
 * 413 with `Connection: close` (see closeAfterAnswer).
 */
export function readMultipart(ctx: Context, opts: { fileFields: string[]; maxFiles: number }): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        // File names arrive as UTF-8 from browsers and curl; busboy's default is latin1.
        defParamCharset: 'utf8',
        limits: {
          // busboy fires 'limit' on *reaching* fileSize, so one byte more: 'limit' then means "over 5 MB".
          fileSize: MAX_FILE_BYTES + 1,
          files: opts.maxFiles,
          fields: 200,
          fieldSize: MAX_FIELDS_BYTES,
          parts: 250,
        },
      });
    } catch {
      reject(new ApiError(400, 'validation_failed', 'The multipart body has no boundary.', { param: 'body' }));
      return;
    }
    const fields: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    let fieldBytes = 0;
    let failed = false;

    const fail = (err: ApiError, cutOff = false) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => {});
      if (cutOff) closeAfterAnswer(ctx);
      else ctx.req.resume(); // the rest is small: read and drop it so the answer can go out normally
      reject(err);
    };

    parser.on('field', (name, value, info) => {
      fieldBytes += name.length + value.length;
      if (info.valueTruncated || fieldBytes > MAX_FIELDS_BYTES) {
        return fail(new ApiError(413, 'payload_too_large', 'The form fields are larger than 1 MB.'), true);
      }
      setField(fields, name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (!opts.fileFields.includes(name)) {
        stream.resume();
        return fail(
          new ApiError(400, 'validation_failed', `Files are accepted only in ${opts.fileFields.join(', ')}.`, {
            param: name,
          }),
        );
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () =>
        fail(
          new ApiError(413, 'file_too_large', `${info.filename || 'The file'} is larger than 5 MB (5,242,880 bytes).`, {
            param: name,
          }),
          true,
        ),
      );
      stream.on('end', () => {
        if (!failed)
          files.push({ field: name, filename: decodeFormName(info.filename ?? ''), data: Buffer.concat(chunks) });
      });
    });
    parser.on('filesLimit', () =>
      fail(
        new ApiError(400, 'validation_failed', `At most ${opts.maxFiles} files per request.`, {
          param: opts.fileFields[0] ?? 'file',
        }),
      ),
    );
    parser.on('fieldsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many form fields.'), true));
    parser.on('partsLimit', () => fail(new ApiError(413, 'payload_too_large', 'Too many form parts.'), true));
    parser.on('error', () =>
      fail(new ApiError(400, 'validation_failed', 'The multipart body is malformed.', { param: 'body' })),
    );
    parser.on('close', () => {
      if (!failed) resolve({ fields, files });
    });
    ctx.req.on('aborted', () => fail(new ApiError(400, 'validation_failed', 'The request was aborted.')));
    ctx.req.pipe(parser);
  });
}

/**
 * Browsers (and fetch) escape `"`, CR and LF in multipart file names as %22, %0D and %0A (WHATWG
 * HTML, "multipart/form-data encoding algorithm"); this reverses it so the name is what the user chose.
 */
const decodeFormName = (name: string) => name.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');

/**
 * Form keys may use brackets for objects: `fields[order_id]=42` becomes { fields: { order_id: "42" } }.
 * Only one level. `__proto__` is dropped at either level, so nothing is ever set on a prototype;
 * `constructor` and `prototype` are ordinary names (a custom field may be called that).
 */
export function setField(target: Record<string, unknown>, name: string, value: string) {
  const m = /^([^[\]]+)\[([^[\]]*)\]$/.exec(name);
  const key = m ? m[1]! : name;
  if (key === '__proto__') return;
  if (!m) {
    target[key] = value;
    return;
  }
  const sub = m[2]!;
  if (sub === '__proto__') return;
  const existing = Object.hasOwn(target, key) ? target[key] : undefined; // not Object.prototype.constructor
  const obj: Record<string, unknown> =
    existing && typeof existing === 'object' && !Array.isArray(existing)
      ? (existing as Record<string, unknown>)
      : Object.create(null);
  if (sub === '') {
    // `name[]` collects a list
    const list = Array.isArray(existing) ? existing : [];
    list.push(value);
    target[key] = list;
    return;
  }
  obj[sub] = value;
  target[key] = obj;
}
