import { connect, createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo: string;
  references: string[];
  /** The Reply-To address, or "". */
  replyTo: string;
  /** Auto-Submitted, or "". */
  autoSubmitted: string;
  /** X-Auto-Response-Suppress, or "". */
  autoResponseSuppress: string;
  /** The message as it arrived. */
  raw: Buffer;
}

/** What a client sent with AUTH (PLAIN or LOGIN), as the server saw it. */
export interface ReceivedAuth {
  method: string;
  username: string;
  password: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  /** Every AUTH a client tried (each is accepted). */
  auths: ReceivedAuth[];
  /** Connections opened so far, and the most that were open at once. */
  connections: { total: number; peak: number };
  /** Resolves once `count` messages have arrived (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * `starttls`: offer STARTTLS with smtp-server's built-in self-signed certificate (a relay whose
 * certificate no client can verify); by default the server speaks plain SMTP only. `host`: another
 * loopback address (127.0.0.2 …), for a second server on the same port. `refuse`: recipients the
 * server refuses at RCPT TO with a permanent 550 ("no such user here"), as a real one does.
 */
export async function startSmtp(
  port = 0,
  options: { starttls?: boolean; host?: string; refuse?: string[] } = {},
): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const auths: ReceivedAuth[] = [];
  const connections = { total: 0, peak: 0 };
  let open = 0;
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: options.starttls ? [] : ['STARTTLS'],
    logger: false,
    // The server's mail pool keeps connections open; close() ends them at once instead of after 30 s.
    closeTimeout: 50,
    onConnect(_session, done) {
      connections.total++;
      connections.peak = Math.max(connections.peak, ++open);
      done();
    },
    onClose() {
      open--;
    },
    onRcptTo(address, _session, done) {
      if (!options.refuse?.includes(address.address)) return done();
      done(
        Object.assign(new Error('5.1.1 <' + address.address + '>: Recipient address rejected: User unknown'), {
          responseCode: 550,
        }),
      );
    },
    onAuth(auth, _session, done) {
      auths.push({ method: auth.method, username: auth.username ?? '', password: auth.password ?? '' });
      done(null, { user: auth.username });
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      new Promise<Buffer>((ok, fail) => {
        stream.on('end', () => ok(Buffer.concat(chunks)));
        stream.on('error', fail);
      })
        .then(async (raw) => ({ raw, mail: await simpleParser(raw) }))
        .then(({ raw, mail }: { raw: Buffer; mail: ParsedMail }) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            messageId: mail.messageId ?? '',
            inReplyTo: mail.inReplyTo ?? '',
            references: typeof mail.references === 'string' ? [mail.references] : (mail.references ?? []),
            replyTo: mail.replyTo?.value[0]?.address ?? '',
            autoSubmitted: String(mail.headers.get('auto-submitted') ?? ''),
            autoResponseSuppress: String(mail.headers.get('x-auto-response-suppress') ?? ''),
            raw,
          });
          waiters.splice(0).forEach((w) => w());
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((ok) => server.listen(port, options.host ?? '127.0.0.1', ok));
  const actual = (server.server.address() as AddressInfo).port;
  return {
    port: actual,
    received,
    auths,
    connections,
    waitFor(count, ms = 10_000) {
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`expected ${count} mails, got ${received.length}`)), ms);
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            ok(received);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** Whether something accepts connections on a loopback port. */
function listensOn(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      done(true);
    });
    s.on('error', () => done(false));
  });
}

/**
 * Waits up to 5 s until a server started beside the tests accepts connections on a loopback port;
 * `failed` tells why to stop sooner (its process ended).
 */
export async function untilListening(port: number, what: string, failed: () => Error | undefined = () => undefined) {
  for (let i = 0; ; i++) {
    const err = failed();
    if (err) throw err;
    if (await listensOn(port)) return;
    if (i === 250) throw new Error(`${what} did not start listening`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A port that nothing listens on (yet): for "the SMTP server is down". Taken below the kernel's ephemeral
 * range, so no other test's `listen(0)` or outgoing connection can be given it in the meantime (once, a
 * server of a parallel test took a freed ephemeral port, and the mail that should have been refused at
 * once waited for an SMTP greeting that never came).
 */
export async function freePort(): Promise<number> {
  const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768'))
    .trim()
    .split(/\s+/)
    .map(Number);
  const ceiling = Math.min(low ?? 32768, 32768);
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (ceiling - 10_000));
    const s = createNetServer();
    const bound = await new Promise<boolean>((ok) => {
      s.once('error', () => ok(false));
      s.listen(port, '127.0.0.1', () => ok(true));
    });
    if (bound) {
      await new Promise<void>((ok) => s.close(() => ok()));
      return port;
    }
  }
}

/**
 * A server that accepts TCP connections and never says a word: an SMTP server that never greets. With
 * `trickle`, it greets, then answers EHLO with a line every 200 ms that never ends the answer: always
 * busy, never done, so no idle timeout fires.
 */
export async function startSilentServer(
  opts: { trickle?: boolean } = {},
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const s: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
    if (!opts.trickle) return;
    socket.write('220 slow.example ESMTP\r\n');
    socket.once('data', () => {
      timer = setInterval(() => socket.write('250-still thinking\r\n'), 200);
    });
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  return {
    port: (s.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((ok) => {
        sockets.forEach((x) => x.destroy());
        s.close(() => ok());
      }),
  };
}
