import { ApiError } from '../http/errors.js';
import type { UploadedFile } from '../http/multipart.js';
import { extensionOf, sanitizeFileName } from './file-name.js';

/** The allowed types of the spec, by extension, with the Content-Type each is stored and served as. */
const BINARY: Record<string, { detected: string[]; type: string }> = {
  jpg: { detected: ['jpg'], type: 'image/jpeg' },
  jpeg: { detected: ['jpg'], type: 'image/jpeg' },
  png: { detected: ['png'], type: 'image/png' },
  gif: { detected: ['gif'], type: 'image/gif' },
  webp: { detected: ['webp'], type: 'image/webp' },
  pdf: { detected: ['pdf'], type: 'application/pdf' },
};
const TEXT: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  csv: 'text/plain; charset=utf-8',
  json: 'application/json',
};
const ZIP_TYPE = 'application/zip';
const ALLOWED = 'jpg, png, gif, webp, pdf, txt, log, json, csv, zip';

/** A mail as it arrived (inbound/): kept by the server beside the files it carried, never uploaded. */
export const ORIGINAL_MAIL_TYPE = 'message/rfc822';

/** Every Content-Type an attachment is stored and served as. */
export const FILE_TYPES = [
  ...new Set([...Object.values(BINARY).map((b) => b.type), ...Object.values(TEXT), ZIP_TYPE, ORIGINAL_MAIL_TYPE]),
];

export interface CheckedFile {
  name: string;
  type: string;
  data: Buffer;
}

// Every zip starts with a local file header, or is empty and starts with the end-of-directory record.
// Checked directly rather than through file-type, which names zip-based formats (docx, jar, ...) by
// their own type although they are zips all the same.
const isZip = (d: Buffer) =>
  d.length >= 4 && d[0] === 0x50 && d[1] === 0x4b && ((d[2] === 3 && d[3] === 4) || (d[2] === 5 && d[3] === 6));

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isCleanText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return utf8.decode(data);
  } catch {
    return undefined;
  }
}

const refuse = (param: string, message: string) => new ApiError(415, 'unsupported_file_type', message, { param });

/**
 * Decides by extension **and** content (API.md, /upload): binary types must start with their magic
 * bytes, text types must be UTF-8 without NUL, and JSON must parse. The bytes are stored as sent; a
 * zip is never opened.
 */
export async function checkFile(file: UploadedFile, param: string): Promise<CheckedFile> {
  const name = sanitizeFileName(file.filename);
  const ext = extensionOf(name);
  if (!name || !ext) throw refuse(param, `The file needs a name with one of these extensions: ${ALLOWED}.`);
  const binary = BINARY[ext];
  if (binary) {
    // Loaded with the first binary upload, not at every start of the server (about 0.1 s).
    const { fileTypeFromBuffer } = await import('file-type');
    const detected = await fileTypeFromBuffer(file.data);
    if (!detected || !binary.detected.includes(detected.ext)) {
      throw refuse(param, `${name} is not really a .${ext} file.`);
    }
    return { name, type: binary.type, data: file.data };
  }
  if (ext === 'zip') {
    if (!isZip(file.data)) throw refuse(param, `${name} is not really a .zip file.`);
    return { name, type: ZIP_TYPE, data: file.data };
  }
  const textType = TEXT[ext];
  if (textType) {
    const text = isCleanText(file.data);
    if (text === undefined) throw refuse(param, `${name} must be UTF-8 text without NUL bytes.`);
    if (ext === 'json') {
      try {
        JSON.parse(text);
      } catch {
        throw refuse(param, `${name} is not valid JSON.`);
      }
    }
    return { name, type: textType, data: file.data };
  }
  throw refuse(param, `.${ext} files are not accepted. Allowed: ${ALLOWED}.`);
}
