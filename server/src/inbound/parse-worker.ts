// The parser thread's entry (parser-thread.ts starts it): parses each mail it is sent and answers with
// the plain result, or with why the mail could not be parsed. Loading mailparser and html-to-text
// happens here, once, before "ready": a thread's start never counts against a mail's deadline.
import { parentPort } from 'node:worker_threads';
import { parseMail } from './parse-mail.js';

const port = parentPort!;
port.on('message', (raw: Uint8Array) => {
  parseMail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).then(
    (parsed) => port.postMessage({ parsed }),
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
});
port.postMessage('ready');
