import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { request, type Agent } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './receiver.js';
import { freePort } from './smtp.js';

// nginx and Caddy started by hand with the guide's configurations (deploy/), for the system tests:
// Debian's packages, installed by .ci/run.
const run = promisify(execFile);

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request through the proxy from a chosen loopback address (127.0.0.0/8 is all this machine). */
export function call(
  port: number,
  method: string,
  path: string,
  options: {
    from?: string;
    key?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    agent?: Agent;
  } = {},
): Promise<ProxyAnswer> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: options.from ?? '127.0.0.1',
        ...(options.agent ? { agent: options.agent } : {}),
        headers: {
          Host: 'support.example.com',
          ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', fail);
    req.end(options.body);
  });
}

/** Waits until something accepts connections on the port. */
const listening = (port: number) =>
  eventually(
    () =>
      new Promise<boolean>((ok) => {
        const socket = createServer().listen(port, '127.0.0.1');
        socket.on('listening', () => socket.close(() => ok(false)));
        socket.on('error', () => ok(true));
      }),
    15_000,
    `a listener on port ${port}`,
  );

export interface RunningProxy {
  port: number;
  process: ChildProcess;
}

/** nginx with `site` (deploy/nginx.conf, its listen line already replaced) in a prefix under `work`. */
export async function startNginx(work: string, site: (port: number, prefix: string) => string): Promise<RunningProxy> {
  const port = await freePort();
  const prefix = join(work, `nginx-${port}`);
  await mkdir(prefix);
  await writeFile(join(prefix, 'site.conf'), site(port, prefix));
  await writeFile(
    join(prefix, 'nginx.conf'),
    `daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 256; }
http {
  access_log ${prefix}/access.log;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  include ${prefix}/site.conf;
}
`,
  );
  const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf')];
  await run('nginx', [...args, '-t']);
  const nginx = spawn('nginx', args, { stdio: 'ignore' });
  await listening(port);
  return { port, process: nginx };
}

/** Caddy with `file` (deploy/Caddyfile, made to serve plain HTTP on the port: no certificate authority here). */
export async function startCaddy(work: string, file: (port: number) => string): Promise<RunningProxy> {
  const port = await freePort();
  const config = join(work, `Caddyfile-${port}`);
  await writeFile(config, file(port));
  const caddy = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    stdio: 'ignore',
    env: caddyEnv(work),
  });
  await listening(port);
  return { port, process: caddy };
}

/** Caddy keeps its state under XDG folders: the test's own. */
export const caddyEnv = (work: string) => ({
  ...process.env,
  XDG_DATA_HOME: join(work, 'caddy-data'),
  XDG_CONFIG_HOME: join(work, 'caddy-config'),
});

/**
 * deploy/nginx.conf on a loopback port, logging under the test's folder, with the test's instances
 * for the guide's two (one: the second line goes, as the guide says for a single instance).
 */
export function nginxSite(conf: string, port: number, upstreams: string[], log: string) {
  const [first, second] = upstreams;
  let site = conf
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replace('listen [::]:80;', '')
    .replace('server 127.0.0.1:3000 ', `server 127.0.0.1:${first} `)
    .replace('/var/log/nginx/ticketing.access.log', log);
  site = second
    ? site.replace('server 127.0.0.1:3001 ', `server 127.0.0.1:${second} `)
    : site.replace(/\n *server 127\.0\.0\.1:3001 [^\n]*/, '');
  if (!site.includes(`server 127.0.0.1:${first} `) || site.includes(':3001 '))
    throw new Error('deploy/nginx.conf has no upstream lines for ports 3000 and 3001');
  return site;
}

/**
 * deploy/Caddyfile on a plain HTTP address (no certificate authority can be reached here), its site
 * block as it is, with the test's instances for the guide's two.
 */
export function caddySite(file: string, port: number, upstreams: string[]) {
  const site = file
    .replace('support.example.com {', `{\n\tadmin off\n}\nhttp://support.example.com:${port} {\n\tbind 127.0.0.1`)
    .replace(
      'reverse_proxy 127.0.0.1:3000 127.0.0.1:3001 {',
      `reverse_proxy ${upstreams.map((u) => `127.0.0.1:${u}`).join(' ')} {`,
    );
  if (!site.includes(`127.0.0.1:${upstreams[0]} `) && !site.includes(`127.0.0.1:${upstreams[0]} {`))
    throw new Error('deploy/Caddyfile has no reverse_proxy line for ports 3000 and 3001');
  return site;
}
