import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { packSnapshot } from '../backup/archive.js';
import { takeSnapshot } from '../backup/snapshot.js';
import type { Deps } from '../deps.js';
import { addKey, KeyCommandError, listKeys, revokeKey } from '../keys/commands.js';
import { AgentNotFoundError, resetPasswordCommand } from '../sessions/reset-password.js';
import { LAYOUT } from '../store/layout.js';
import { controlSocketPath } from './socket-path.js';

export interface ControlServer {
  /** Undefined when the data directory's path is too long for a socket address. */
  path: string | undefined;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

/**
 * The running server's local control channel, for `ticketing keys` and `ticketing backup`: HTTP over
 * a Unix socket in the data directory, mode 0600. Whoever can connect can already read and write
 * the data directory's files (the same user, or root), so the socket's permissions are its
 * authentication; it grants nothing the files do not. It never listens on a network address.
 *
 *   GET  /status        { pid, version, url }
 *   GET  /keys          { keys: [KeyView] }
 *   POST /keys          { kind, mode, origins?, label? } -> 201 { key, view }
 *   POST /keys/revoke   { target } -> { view }
 *   POST /agents/reset-password  { email } -> { email, password } (a one-time password)
 *   GET  /backup        a tar archive of a consistent snapshot (see backup/)
 */
export async function startControlServer(dataDir: string, deps: Deps, url: string): Promise<ControlServer> {
  const path = controlSocketPath(dataDir);
  if (!path) {
    deps.logger.warn(
      { dataDir },
      'the data directory path is too long for a control socket: ticketing keys and backup work only with the server stopped',
    );
    return { path: undefined, close: async () => {} };
  }
  // A socket file left by a killed server: this process holds the lock, so nothing else listens on it.
  await unlink(path).catch(() => {});

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof AgentNotFoundError)
        return send(res, 404, { error: { code: 'agent_not_found', message: err.message } });
      if (err instanceof KeyCommandError) {
        const status = err.code === 'validation_failed' ? 400 : err.code === 'key_not_found' ? 404 : 409;
        return send(res, status, { error: { code: err.code, message: err.message } });
      }
      deps.logger.error({ err }, 'control: request failed');
      if (!res.headersSent)
        send(res, 500, { error: { code: 'internal_error', message: 'The request failed; see the server log.' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const route = `${req.method} ${req.url}`;
    if (route === 'GET /status') return send(res, 200, { pid: process.pid, version: deps.version, url });
    if (route === 'GET /keys') return send(res, 200, { keys: await listKeys(deps.keys) });
    if (route === 'POST /keys') {
      const { key, view } = await addKey(deps.keys, deps.audit, await body(req), deps.clock());
      return send(res, 201, { key, view });
    }
    if (route === 'POST /keys/revoke') {
      const { target } = (await body(req)) as { target?: unknown };
      if (typeof target !== 'string' || !target)
        throw new KeyCommandError('validation_failed', 'target: a key id or prefix is required');
      return send(res, 200, { view: (await revokeKey(deps.keys, deps.audit, target, deps.clock())).view });
    }
    if (route === 'POST /agents/reset-password') {
      const { email } = (await body(req)) as { email?: unknown };
      if (typeof email !== 'string' || !email) throw new AgentNotFoundError('email: an agent’s email is required');
      return send(res, 200, await resetPasswordCommand(deps, email, deps.clock()));
    }
    if (route === 'GET /backup') {
      // One cut for every file, the ticket journals included (backup/snapshot.ts): no flush first.
      const snapshot = await takeSnapshot(dataDir, deps.clock);
      deps.logger.info({ files: snapshot.files.length, pausedMs: snapshot.pausedMs }, 'backup: snapshot taken');
      try {
        res.writeHead(200, { 'Content-Type': 'application/x-tar', 'X-Paused-Ms': String(snapshot.pausedMs) });
        await pipeline(packSnapshot(snapshot, { serverVersion: deps.version, createdAt: snapshot.cutAt }), res);
      } finally {
        await snapshot.release();
      }
      return;
    }
    send(res, 404, { error: { code: 'not_found', message: `No such command: ${route}` } });
  }

  // Only this user may connect: the socket is created under umask 077, then chmod 0600 to be sure.
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  await chmod(path, 0o600);
  const socketFile = resolve(join(dataDir, LAYOUT.controlSocket));
  return {
    path,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
        void unlink(socketFile).catch(() => {});
      }),
  };
}

function send(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function body(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new KeyCommandError('validation_failed', 'body: larger than 64 KB');
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new KeyCommandError('validation_failed', 'body: not valid JSON');
  }
}
