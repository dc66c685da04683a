import { request } from 'node:http';

/**
 * Sends a multipart upload of `size` bytes as a stream (never held in memory here) and resolves with
 * the status as soon as the server answers, even if it answers before the body is sent: the way a
 * browser sees an early 413.
 */
export function streamUpload(
  url: string,
  key: string,
  fields: Record<string, string>,
  file: { name: string; size: number; field?: string },
): Promise<{ status: number; body: string; sent: number }> {
  const boundary = '----ticketing' + Math.random().toString(16).slice(2);
  let head = '';
  for (const [k, v] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: text/plain\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = Buffer.byteLength(head) + file.size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = false;
    const req = request(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': length,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        done = true;
        resolve({ status: res.statusCode ?? 0, body, sent });
      });
    });
    req.on('error', (err) => {
      if (!done) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.write(head);
    const pump = () => {
      while (sent < file.size && !done) {
        const n = Math.min(chunk.length, file.size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      if (!done) req.end(tail);
    };
    pump();
  });
}
