// The part of @koa/multer 4 (over multer 2) that http/multipart.ts uses. Declared here because
// @types/koa__multer describes @koa/multer 2 (no none(), streamHandler or defParamCharset) and adds
// `file` and `files` to every Koa context; @types/multer brings in Express's types.
declare module '@koa/multer' {
  import type { IncomingMessage } from 'node:http';
  import type { Readable } from 'node:stream';
  import type { Busboy } from 'busboy';
  import type { Middleware } from 'koa';

  namespace multer {
    interface File {
      fieldname: string;
      originalname: string;
      encoding: string;
      mimetype: string;
      size: number;
      /** Only while a storage engine's _handleFile runs. */
      stream: Readable;
      buffer: Buffer;
    }
    interface StorageEngine {
      _handleFile(
        req: IncomingMessage,
        file: File,
        callback: (error: Error | null, info?: Partial<File>) => void,
      ): void;
      _removeFile(req: IncomingMessage, file: File, callback: (error: Error | null) => void): void;
    }
    interface Options {
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
      fileFilter?(req: IncomingMessage, file: File, callback: (error: Error | null, accept?: boolean) => void): void;
      defParamCharset?: string;
      /** Feeds the request to the parser; by default `req.pipe(parser)`. */
      streamHandler?(req: IncomingMessage, parser: Busboy): void;
    }
    interface Instance {
      any(): Middleware;
    }
  }

  function multer(options: multer.Options): multer.Instance;
  export = multer;
}
