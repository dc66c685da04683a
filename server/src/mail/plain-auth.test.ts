import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { queuedJobs, storedConfigText } from '../test-support/stored-tickets.js';

// Issue 28: a mail password never crosses the wire in clear unless the admin allows it for a local
// relay, and changing how it travels (secure, certificate check, plain text) forgets it.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const PASSWORD = 'relay-password-canary-28';

async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}

const saveMail = async (s: TestServer, mail: Record<string, unknown>) => {
  const res = await s.call('POST', '/admin?r=mail', { json: { from_address: 'help@shop.example', ...mail } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.mail;
};

/**
 * An IMAP server on loopback that offers no STARTTLS (as one would look to a client whose network
 * strips it) and accepts any LOGIN: it records what each client sent before the connection ended.
 */
async function plainImap() {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.write('* OK [CAPABILITY IMAP4rev1] ready\r\n');
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        lines.push(line);
        const [tag, command = ''] = line.split(' ');
        const name = command.toUpperCase();
        if (name === 'CAPABILITY') socket.write(`* CAPABILITY IMAP4rev1\r\n${tag} OK done\r\n`);
        else if (name === 'LOGOUT') socket.end(`* BYE\r\n${tag} OK bye\r\n`);
        // Any other command (LOGIN included) is refused: the test only needs to see what arrived.
        else socket.write(`${tag} NO not here\r\n`);
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanup.push(
    () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  );
  return { port: (server.address() as AddressInfo).port, lines };
}

describe('SMTP to a server that offers no STARTTLS (port 587, secure false)', () => {
  it('sends no password and says why, in the test mail and in the delivery; allow_plain_auth lets a local relay have it', async () => {
    const s = await server();
    const smtp = await startSmtp(); // plain SMTP only, STARTTLS disabled
    cleanup.push(() => smtp.close());
    const saved = await saveMail(s, {
      smtp: { host: '127.0.0.1', port: smtp.port, user: 'shop', pass: PASSWORD },
      email_notify: { customer_on_create: true },
    });
    expect(saved.smtp).toMatchObject({ secure: false, allow_plain_auth: false, pass_set: true });

    const test = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(test.status).toBe(200);
    expect(test.body.sent).toBe(false);
    expect(test.body.error).toMatch(/offers no STARTTLS, so the password was not sent/);
    expect(test.body.error).toContain('allow_plain_auth');

    await createTicket(s, { subject: 'downgraded' });
    await s.running.deps.outbox.idle();
    const jobs = await queuedJobs(s);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job.last_error).toMatch(/offers no STARTTLS/);
    expect(smtp.auths).toEqual([]); // the password never went out ...
    expect(smtp.received).toEqual([]); // ... and neither did a mail

    // The admin vouches for a relay on this host: plain text allowed (the password is sent anew, as
    // changing how it travels forgets the stored one).
    const allowed = await saveMail(s, {
      smtp: { host: '127.0.0.1', port: smtp.port, user: 'shop', allow_plain_auth: true, pass: PASSWORD },
    });
    expect(allowed.smtp).toMatchObject({ allow_plain_auth: true, pass_set: true });
    const again = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(again.body).toMatchObject({ sent: true, error: null });
    expect(smtp.auths).toEqual([{ method: 'PLAIN', username: 'shop', password: PASSWORD }]);
  });

  it('sends mail without AUTH as before when no password is set (nothing to protect)', async () => {
    const s = await server();
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    await saveMail(s, { smtp: { host: '127.0.0.1', port: smtp.port } });
    const test = await s.call('POST', '/admin/mail-test', { json: { to: 'owner@shop.example' } });
    expect(test.body).toMatchObject({ sent: true, error: null });
    expect(smtp.auths).toEqual([]);
  });
});

describe('IMAP to a server that offers no STARTTLS (secure false)', () => {
  it('sends no LOGIN unless allow_plain_auth is on', async () => {
    const s = await server();
    const imap = await plainImap();
    const inbound = (over: object) => ({
      inbound: {
        imap: { host: '127.0.0.1', port: imap.port, secure: false, user: 'support', pass: PASSWORD, ...over },
      },
    });
    await saveMail(s, inbound({}));
    await eventually(() => s.logs.some((l) => l.includes('IMAP session ended')), 15_000, 'the refused session');
    // It connected, found no STARTTLS, and said so ...
    expect(s.logs.find((l) => l.includes('IMAP session ended'))).toMatch(/STARTTLS/i);
    expect(imap.lines.join('\n')).not.toMatch(/LOGIN|AUTHENTICATE/i); // ... and sent no password
    expect(imap.lines.join('\n')).not.toContain(PASSWORD);

    // Allowed for a mailbox on this host: the password goes (sent anew: the setting forgets it).
    await saveMail(s, inbound({ allow_plain_auth: true }));
    await eventually(() => imap.lines.join('\n').includes(PASSWORD), 15_000, 'the LOGIN');
  });
});

describe('a stored mail password', () => {
  const changes = [{ secure: true }, { allow_invalid_certificate: true }, { allow_plain_auth: true }];

  it.each(changes)('is forgotten when %o changes how it travels (SMTP and IMAP)', async (change) => {
    const s = await server();
    const smtp = { host: 'smtp.example', port: 587, user: 'shop', secure: false };
    const imap = { host: '127.0.0.1', port: 1, user: 'support', secure: false };
    const kept = await saveMail(s, {
      smtp: { ...smtp, pass: `${PASSWORD}-smtp` },
      inbound: { imap: { ...imap, pass: `${PASSWORD}-imap` } },
    });
    expect(kept.smtp.pass_set).toBe(true);
    expect(kept.inbound.imap.pass_set).toBe(true);
    // The same settings again keep it: only a change of how it travels forgets it.
    const same = await saveMail(s, { smtp, inbound: { imap } });
    expect([same.smtp.pass_set, same.inbound.imap.pass_set]).toEqual([true, true]);

    const changed = await saveMail(s, { smtp: { ...smtp, ...change }, inbound: { imap: { ...imap, ...change } } });
    expect(changed.smtp).toMatchObject({ ...change, pass_set: false });
    expect(changed.inbound.imap).toMatchObject({ ...change, pass_set: false });
    expect(await storedConfigText(s)).not.toContain(PASSWORD); // forgotten, not hidden
  });
});
