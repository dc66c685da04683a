import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { Busboy } from 'busboy';
import type { Middleware } from 'koa';

// @koa/multer 4 (over multer 2) has no types of its own; @types/koa__multer describes @koa/multer 2
// (no streamHandler or defParamCharset) and adds `file` and `files` to every Koa context, and
// @types/multer brings in Express's types. So the part http/multipart.ts uses is typed here, and the
// CommonJS package is loaded with require(), which needs no module declaration in every TypeScript
// program that compiles this file (demo-site's tests do too).

export interface MulterFile {
  fieldname: string;
  /** The client's file name, with the WHATWG escapes (%22, %0D, %0A) reversed. */
  originalname: string;
  encoding: string;
  mimetype: string;
  /** Only while a storage engine's _handleFile runs. */
  stream: Readable;
  buffer: Buffer;
}

export interface StorageEngine {
  _handleFile(
    req: IncomingMessage,
    file: MulterFile,
    done: (error: Error | null, info?: Partial<MulterFile>) => void,
  ): void;
  _removeFile(req: IncomingMessage, file: MulterFile, done: (error: Error | null) => void): void;
}

export interface MulterOptions {
  storage: StorageEngine;
  limits?: {
    fieldNameSize?: number;
    fieldSize?: number;
    fields?: number;
    fileSize?: number;
    files?: number;
    parts?: number;
    headerPairs?: number;
  };
  fileFilter?(req: IncomingMessage, file: MulterFile, accept: (error: Error | null, accept?: boolean) => void): void;
  defParamCharset?: string;
  /** Feeds the request to the parser; by default `req.pipe(parser)`. */
  streamHandler?(req: IncomingMessage, parser: Busboy): void;
}

export const multer = createRequire(import.meta.url)('@koa/multer') as (options: MulterOptions) => {
  /** Files in any field (fileFilter decides), in `ctx.files` in the order they came. */
  any(): Middleware;
};
