import { request } from 'node:http';

export interface StreamedAnswer {
  status: number;
  body: string;
  /** Filler bytes written before the answer ended. */
  sent: number;
}

export interface StreamedBody {
  headers: Record<string, string>;
  head?: string;
  /** Filler bytes sent between head and tail, as a stream (never held in memory here). */
  size: number;
  tail?: string;
  /** Sent with chunked transfer encoding instead of a Content-Length. */
  chunked?: boolean;
  /** A connection of its own, which the client asks to close (`Connection: close`). */
  close?: boolean;
}

/**
 * POSTs a body with node:http, as a stream, and resolves with the answer as soon as it has arrived,
 * even if the server answers before the body is sent: the way a browser sees an early 413. Rejects
 * (EPIPE, ECONNRESET) when the connection fails before the whole answer is read: what a client sees
 * as a broken pipe instead of the answer.
 */
export function streamPost(url: string, body: StreamedBody): Promise<StreamedAnswer> {
  const head = body.head ?? '';
  const tail = body.tail ?? '';
  const length = Buffer.byteLength(head) + body.size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = false;
    const req = request(url, {
      method: 'POST',
      headers: { ...body.headers, ...(body.chunked ? {} : { 'Content-Length': length }) },
      ...(body.close ? { agent: false } : {}),
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        done = true;
        resolve({ status: res.statusCode ?? 0, body: text, sent });
      });
    });
    req.on('error', (err) => {
      if (!done) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.write(head);
    const pump = () => {
      while (sent < body.size && !done) {
        const n = Math.min(chunk.length, body.size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      if (!done) req.end(tail);
    };
    pump();
  });
}

/** A multipart upload of a `size`-byte file (and `fields` before it), sent as by streamPost. */
export function streamUpload(
  url: string,
  key: string,
  fields: Record<string, string>,
  file: { name: string; size: number; field?: string },
  options: { chunked?: boolean; close?: boolean } = {},
): Promise<StreamedAnswer> {
  const boundary = '----ticketing' + Math.random().toString(16).slice(2);
  let head = '';
  for (const [k, v] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: text/plain\r\n\r\n`;
  return streamPost(url, {
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    head,
    size: file.size,
    tail: `\r\n--${boundary}--\r\n`,
    ...options,
  });
}
