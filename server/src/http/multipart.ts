import type { Context } from 'koa';
import type { EventEmitter } from 'node:events';
import { ApiError } from './errors.js';
import { multer, type MulterFile, type StorageEngine } from './koa-multer.js';
import { closeAfterAnswer } from './refused-body.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024; // 5,242,880: exactly this much is accepted
export const MAX_FIELDS_BYTES = 1024 * 1024;
// Part headers and boundaries of one body, on top of its fields and files: browsers send about 150
// bytes a part, so only a hostile body comes near.
const MAX_OVERHEAD_BYTES = 1024 * 1024;
const LIMITS = {
  fileSize: MAX_FILE_BYTES,
  fieldSize: MAX_FIELDS_BYTES,
  fieldNameSize: 200,
  fields: 200,
  parts: 250,
  headerPairs: 100,
};

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
 * Reads a multipart body with @koa/multer, whose multer core checks part names, counts and sizes.
 *
 * Multer reads a refused body to its end before it reports the error (so that the client, done
 * sending, reads the answer), an over-size file included. Measured with a 50 MB upload to /upload:
 * multer alone read all 50 MB and answered after 2.6 s (500 MB: read whole, 5.3 s), where docs/api.md
 * promises that the server stops reading once a file passes 5 MB. So three refusals are answered here
 * at once, with `Connection: close` and the rest unread: a file over 5 MB (busboy's `limit` on the
 * file stream, seen by the storage engine below), form fields over 1 MB together, and a body longer
 * than any this endpoint takes (`maxBody`). With them the 50 MB upload is answered after 8.3-8.8 MB
 * were sent, in 90-130 ms, the server's RSS up 5-8 MB (500 MB: 9.4-12.8 MB sent, RSS up 13-14 MB), as
 * with the busboy layer this replaces (8.3-9.3 MB, 260-620 ms, RSS up 5-9 MB). What multer refuses
 * itself (a part without a name, too many files, fields or parts, a malformed body) is answered once
 * the rest of the body, no longer than `maxBody`, has been read and dropped.
 */
export function readMultipart(ctx: Context, opts: { fileFields: string[]; maxFiles: number }): Promise<MultipartBody> {
  const maxBody = MAX_OVERHEAD_BYTES + MAX_FIELDS_BYTES + opts.maxFiles * MAX_FILE_BYTES;
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    let fieldBytes = 0;
    let parsing = false;
    let problem: ApiError | undefined; // refused once multer is done, like multer's own errors
    let settled = false;

    const settle = (outcome: () => void) => {
      if (settled) return false;
      settled = true;
      outcome();
      return true;
    };
    // Answers now; the rest of the body is not read (multer finishes when the socket closes).
    const refuse = (err: unknown) => {
      const first = settle(() => {
        ctx.req.unpipe();
        closeAfterAnswer(ctx);
        reject(err);
      });
      if (!first && !(err instanceof ApiError)) ctx.app.emit('error', err, ctx);
    };

    const storage: StorageEngine = {
      _handleFile(_req, file, done) {
        contain(file.stream, refuse);
        const chunks: Buffer[] = [];
        file.stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        file.stream.on('limit', () => refuse(fileTooLarge(file.originalname, file.fieldname)));
        file.stream.on('end', () => done(null, { buffer: Buffer.concat(chunks) }));
      },
      _removeFile(_req, _file, done) {
        done(null);
      },
    };
    const upload = multer({
      storage,
      limits: { ...LIMITS, files: opts.maxFiles || Infinity }, // with no file fields, fileFilter names the field
      defParamCharset: 'utf8', // file names arrive as UTF-8 from browsers and curl; busboy's default is latin1
      fileFilter(_req, file, accept) {
        if (opts.fileFields.includes(file.fieldname)) return accept(null, true);
        const message = opts.fileFields.length
          ? `Files are accepted only in ${opts.fileFields.join(', ')}.`
          : 'This endpoint takes no files.';
        accept(new ApiError(400, 'validation_failed', message, { param: file.fieldname }));
      },
      streamHandler(req, parser) {
        parsing = true;
        contain(req, refuse);
        contain(parser, refuse);
        let bytes = 0;
        req.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > maxBody)
            refuse(new ApiError(413, 'payload_too_large', 'The body is larger than this endpoint takes.'));
        });
        parser.on('field', (rawName: string | undefined, value: string | undefined, info) => {
          if (rawName === undefined) return; // multer refuses it: MISSING_FIELD_NAME
          const name = decodeFormName(rawName);
          if (value === undefined) {
            // busboy gives no value for a charset it cannot decode
            problem ??= new ApiError(400, 'validation_failed', `${name}: is in an unknown charset.`, { param: name });
            return;
          }
          fieldBytes += rawName.length + value.length;
          if (info.valueTruncated || fieldBytes > MAX_FIELDS_BYTES) {
            return refuse(new ApiError(413, 'payload_too_large', 'The form fields are larger than 1 MB.'));
          }
          setField(fields, name, value);
        });
        req.pipe(parser);
      },
    });

    upload
      .any()(ctx, () => Promise.resolve())
      .then(
        () =>
          settle(() => {
            if (problem) return reject(problem);
            if (!parsing) return reject(malformed('The body is not multipart/form-data with a boundary.'));
            const files = (ctx as Context & { files?: MulterFile[] }).files ?? [];
            resolve({
              fields,
              files: files.map((f) => ({ field: f.fieldname, filename: f.originalname, data: f.buffer })),
            });
          }),
        (err: unknown) => settle(() => reject(fromMulter(err, opts))),
      );
  });
}

const malformed = (message = 'The multipart body is malformed.') =>
  new ApiError(400, 'validation_failed', message, { param: 'body' });

const fileTooLarge = (filename: string, field: string) =>
  new ApiError(413, 'file_too_large', `${filename || 'The file'} is larger than 5 MB (5,242,880 bytes).`, {
    param: field,
  });

/** Multer's and busboy's refusals in the shape of docs/api.md; anything else is a bug, left to be a 500. */
function fromMulter(err: unknown, opts: { fileFields: string[]; maxFiles: number }): unknown {
  if (err instanceof ApiError) return err;
  if (!(err instanceof Error)) return err;
  const { code, field } = err as Error & { code?: string; field?: string };
  switch (code) {
    case 'MISSING_FIELD_NAME':
      return malformed('Every part of a multipart body needs a name.');
    case 'LIMIT_FIELD_KEY':
      return malformed(`A field name is longer than ${LIMITS.fieldNameSize} bytes.`);
    case 'LIMIT_FILE_COUNT':
      return new ApiError(400, 'validation_failed', `At most ${opts.maxFiles} files per request.`, {
        param: opts.fileFields[0] ?? 'body',
      });
    case 'LIMIT_FILE_SIZE': // answered by the storage engine as soon as it happens; here for completeness
      return fileTooLarge('', field ?? 'file');
    case 'LIMIT_FIELD_VALUE':
      return new ApiError(413, 'payload_too_large', 'The form fields are larger than 1 MB.');
    case 'LIMIT_FIELD_COUNT':
      return new ApiError(413, 'payload_too_large', 'Too many form fields.');
    case 'LIMIT_PART_COUNT':
      return new ApiError(413, 'payload_too_large', 'Too many form parts.');
  }
  // busboy's parse errors and a request that went away are plain Errors (or socket errors with a code);
  // a TypeError or the like would be a bug.
  return err.constructor === Error || code !== undefined ? malformed() : err;
}

/**
 * Makes an exception thrown while `emitter` emits (in a listener of ours, multer's or busboy's, or in
 * busboy's parsing, which runs inside the request's 'data' event) refuse this request, instead of
 * escaping to the event loop, where it would end the process and every request in flight. An 'error'
 * event nobody listens to is caught the same way.
 */
function contain(emitter: EventEmitter, onError: (err: unknown) => void) {
  const emit = emitter.emit.bind(emitter);
  emitter.emit = (event: string | symbol, ...args: unknown[]) => {
    try {
      return emit(event, ...args);
    } catch (err) {
      onError(err);
      return true;
    }
  };
}

/**
 * Browsers (and fetch) escape `"`, CR and LF in multipart field names as %22, %0D and %0A (WHATWG
 * HTML, "multipart/form-data encoding algorithm"); this reverses it. (Multer does the same for file
 * names.)
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
