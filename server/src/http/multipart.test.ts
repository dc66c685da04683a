import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { streamPost } from '../test-support/raw-upload.js';
import { makeKeys, type TestKeys } from '../test-support/server.js';

// The server runs in its own process: an error escaping a parser callback ends that process, which
// these tests see as the server going away (and which would take the test runner with it in-process).
let child: ChildServer;
let keys: TestKeys;
let dataDir = '';
let ticketId = '';
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ticketing-multipart-'));
  keys = makeKeys();
  child = await startChild({
    TICKETING_DATA_DIR: dataDir,
    TICKETING_KEYS: Object.values(keys).join(','),
    TICKETING_RATE_LIMIT: 'off',
  });
  const res = await fetch(`${child.url}/v1/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', subject: 's', message: 'm' }),
  });
  ticketId = ((await res.json()) as { id: string }).id;
});
afterAll(async () => {
  child.proc.kill('SIGTERM');
  await child.exited;
  await rm(dataDir, { recursive: true, force: true });
});

const B = 'fuzzboundary';
const CT = `multipart/form-data; boundary=${B}`;
const field = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string, filename: string, data: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n`;
const end = `--${B}--\r\n`;
const ticket = () =>
  field('name', 'Ada') + field('email', 'ada@example.com') + field('subject', 's') + field('message', 'm');
// The cases are built before the ticket exists; its id goes in when a case is sent.
const TICKET = '{ticket}';
const upload = () => field('ticket_id', TICKET) + field('email', 'ada@example.com');

async function post(path: string, body: string | Buffer, contentType = CT) {
  const res = await fetch(`${child.url}/v1${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': contentType },
    body: typeof body === 'string' ? Buffer.from(body.replaceAll(TICKET, ticketId), 'latin1') : body,
  });
  const text = await res.text();
  return { status: res.status, text, error: res.status >= 400 ? (JSON.parse(text) as { error: Err }).error : null };
}
interface Err {
  code: string;
  message: string;
  param?: string;
}

/** The server is still there and answers a normal request normally. */
async function stillServing() {
  expect(child.proc.exitCode, child.output()).toBeNull();
  const res = await fetch(`${child.url}/v1/meta`, { headers: { Authorization: `Bearer ${keys.pk}` } });
  expect(res.status).toBe(200);
}

// [label, path, body, content type, status, code, param]
type Case = [string, string, string | Buffer, string, number, string, string?];
const cases = (): Case[] => [
  [
    'a part without a name',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n` + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a part with an empty name (curl -F =x)',
    '/create',
    ticket() + field('', 'x') + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  ['an empty name first', '/create', field('', 'x') + ticket() + end, CT, 400, 'validation_failed', 'body'],
  [
    'a file without a name',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-data; filename="a.txt"\r\n\r\nx\r\n` + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a file with an empty name',
    '/upload',
    upload() + file('', 'a.txt', 'x') + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a part with an empty name on /reply',
    '/reply',
    field('ticket_id', TICKET) + field('', 'x') + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  ['no boundary', '/create', ticket() + end, 'multipart/form-data', 400, 'validation_failed', 'body'],
  ['an empty boundary', '/create', ticket() + end, 'multipart/form-data; boundary=', 400, 'validation_failed', 'body'],
  [
    'a boundary the body does not use',
    '/create',
    ticket() + end,
    'multipart/form-data; boundary=other',
    400,
    'validation_failed',
    'body',
  ],
  [
    'a part cut off in its headers',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-da`,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a part cut off in its value',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-data; name="x"\r\n\r\nhal`,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a file cut off',
    '/upload',
    upload() + file('file', 'a.txt', 'x').slice(0, -6),
    CT,
    400,
    'validation_failed',
    'body',
  ],
  ['no final boundary', '/create', ticket(), CT, 400, 'validation_failed', 'body'],
  ['a final boundary without its dashes', '/create', ticket() + `--${B}\r\n`, CT, 400, 'validation_failed', 'body'],
  [
    'two files where one is allowed',
    '/upload',
    upload() + file('file', 'a.txt', 'x') + file('file', 'b.txt', 'y') + end,
    CT,
    400,
    'validation_failed',
    'file',
  ],
  [
    'eleven attachments',
    '/create',
    ticket() + Array.from({ length: 11 }, (_, i) => file('attachments[]', `f${i}.txt`, 'x')).join('') + end,
    CT,
    400,
    'validation_failed',
    'attachments[]',
  ],
  [
    'a file in a text field',
    '/upload',
    field('email', 'ada@example.com') + file('ticket_id', 'a.txt', TICKET) + end,
    CT,
    400,
    'validation_failed',
    'ticket_id',
  ],
  [
    'a file where no files are taken',
    '/reply',
    field('ticket_id', TICKET) + field('message', 'hi') + file('attachments[]', 'a.txt', 'x') + end,
    CT,
    400,
    'validation_failed',
    'attachments[]',
  ],
  [
    'a 20 KB part header',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-data; name="x"\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\nx\r\n` + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    '3,000 header lines in a part',
    '/create',
    ticket() + `--${B}\r\nContent-Disposition: form-data; name="x"\r\n${'X-A: b\r\n'.repeat(3000)}\r\nx\r\n` + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'a 300-byte field name',
    '/create',
    ticket() + field('n'.repeat(300), 'x') + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'fields over 1 MB together',
    '/create',
    ticket() + field('a', 'x'.repeat(400_000)).repeat(3) + end,
    CT,
    413,
    'payload_too_large',
  ],
  [
    'a field over 1 MB',
    '/create',
    ticket() + field('message2', 'x'.repeat(1024 * 1024 + 1)) + end,
    CT,
    413,
    'payload_too_large',
  ],
  ['300 parts', '/create', ticket() + field('x', 'y').repeat(300) + end, CT, 413, 'payload_too_large'],
  [
    'garbage bytes',
    '/create',
    Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)),
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'garbage after a boundary',
    '/create',
    `--${B}\r\n\u0000\u00ff\u0001garbage\r\n\r\n` + end,
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'bare LF line ends',
    '/create',
    ticket().replace(/\r\n/g, '\n') + end.replace(/\r\n/g, '\n'),
    CT,
    400,
    'validation_failed',
    'body',
  ],
  [
    'an unknown charset on a field',
    '/create',
    ticket() +
      `--${B}\r\nContent-Disposition: form-data; name="x"\r\nContent-Type: text/plain; charset=x-nope\r\n\r\nx\r\n` +
      end,
    CT,
    400,
    'validation_failed',
    'x',
  ],
  [
    'a broken filename*',
    '/upload',
    upload() + `--${B}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''%E0%A4%A\r\n\r\nx\r\n` + end,
    CT,
    400,
    'validation_failed',
    'file',
  ],
  ['an empty body', '/create', '', CT, 400, 'validation_failed', 'body'],
  ['only the final boundary', '/create', end, CT, 400, 'validation_failed', 'name'],
];

describe('malformed multipart bodies', () => {
  it.each(cases().map((c) => [c[0], c] as const))(
    '%s: a documented error, and the server keeps serving',
    async (_label, c) => {
      const [, path, body, contentType, status, code, param] = c;
      const res = await post(path, body, contentType);
      expect(res.status, res.text).toBe(status);
      if (status >= 400) {
        expect(res.error!.code).toBe(code);
        if (param) expect(res.error!.param).toBe(param);
        expect(res.text).not.toMatch(/\n\s+at |node_modules|\/src\//);
      }
      await stillServing();
    },
  );

  it('a body that stops mid-part and a client that goes away leave the server serving', async () => {
    const head = `POST /v1/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.pk}\r\nContent-Type: ${CT}\r\n`;
    const { port } = new URL(child.url);
    // Promises more than it sends, then closes its side.
    await new Promise<void>((done) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(
          `${head}Content-Length: 100000\r\n\r\n${ticket()}--${B}\r\nContent-Disposition: form-data; name="x"\r\n\r\nhal`,
        );
      });
      socket.resume();
      socket.on('close', () => done());
    });
    await stillServing();
    // Goes away in the middle of a file.
    await new Promise<void>((done) => {
      const req = request(`${child.url}/v1/upload`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': CT, 'Content-Length': 10_000_000 },
      });
      req.on('error', () => done());
      req.write(
        `${upload().replaceAll(TICKET, ticketId)}--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n`,
      );
      req.write(Buffer.alloc(256 * 1024, 'a'), () => req.destroy());
    });
    await stillServing();
    // Goes away right after the headers of a part without a name.
    await new Promise<void>((done) => {
      const req = request(`${child.url}/v1/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': CT, 'Content-Length': 10_000 },
      });
      req.on('error', () => done());
      req.on('response', () => done());
      req.write(`${field('', 'x')}--${B}\r\nContent-Disposition: form-data; name="y"\r\n\r\n`, () => req.destroy());
    });
    await stillServing();
  });

  it('stops reading a body longer than any the endpoint takes, and answers at once', async () => {
    // /reply takes no files: 1 MB of fields and 1 MB of part headers at most. One field of 50 MB is
    // refused when the body passes 2 MB, not when the field ends.
    const res = await streamPost(`${child.url}/v1/reply`, {
      headers: { Authorization: `Bearer ${keys.pk}`, 'Content-Type': CT },
      head: `${field('ticket_id', ticketId)}--${B}\r\nContent-Disposition: form-data; name="message"\r\n\r\n`,
      size: 50 * 1024 * 1024,
      tail: `\r\n${end}`,
    });
    expect(res.status, res.body).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('payload_too_large');
    expect(res.sent).toBeLessThan(50 * 1024 * 1024);
    await stillServing();
  });

  it('still takes a well-formed body after all that', async () => {
    const res = await post(
      '/create',
      ticket() + field('fields[order]', '7') + file('attachments[]', 'a.txt', 'hello') + end,
    );
    expect(res.status, res.text).toBe(201);
    expect(JSON.parse(res.text).attachments).toHaveLength(1);
  });
});
