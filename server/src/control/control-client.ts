import { request, type IncomingMessage } from 'node:http';
import { controlSocketPath } from './socket-path.js';

export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The answer of the running server's control socket; throws ControlError for its errors. */
export function controlRequest(
  dataDir: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<IncomingMessage> {
  const socketPath = controlSocketPath(dataDir);
  if (!socketPath)
    return Promise.reject(
      Object.assign(new Error('the data directory path is too long for a socket'), { code: 'ENAMETOOLONG' }),
    );
  return new Promise((ok, fail) => {
    const req = request({ socketPath, method, path, headers: { 'Content-Type': 'application/json' } }, (res) => {
      if ((res.statusCode ?? 500) < 400) return ok(res);
      readJson(res).then((answer) => {
        const error = (answer as { error?: { code?: string; message?: string } }).error;
        fail(
          new ControlError(res.statusCode ?? 500, error?.code ?? 'error', error?.message ?? `status ${res.statusCode}`),
        );
      }, fail);
    });
    req.on('error', fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export async function controlJson<T>(
  dataDir: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<T> {
  return (await readJson(await controlRequest(dataDir, method, path, body))) as T;
}

async function readJson(res: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of res as AsyncIterable<Buffer>) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
