import { afterEach, describe, expect, it } from 'vitest';
import { startDovecot, type TestDovecot } from '../test-support/dovecot.js';
import { eventually } from '../test-support/receiver.js';
import { startServer, type TestServer } from '../test-support/server.js';
import { SUPPORT } from '../test-support/mail-in.js';

// The IMAP reader against Debian's dovecot (installed by .ci/run), started here on a free port with a
// throwaway configuration and mail directory.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const mail = (n: number, from = 'ada@example.com') =>
  [
    `From: Customer ${n} <${from}>`,
    `To: ${SUPPORT}`,
    `Subject: by imap ${n}`,
    `Message-ID: <imap-${n}@example.com>`,
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    '',
    `Mail number ${n}.`,
    '',
  ].join('\r\n');

async function configure(s: TestServer, dovecot: TestDovecot, imap: Record<string, unknown> = {}) {
  const res = await s.call('POST', '/admin?r=mail', {
    json: {
      from_address: SUPPORT,
      inbound: {
        imap: {
          host: '127.0.0.1',
          port: dovecot.port,
          secure: false,
          user: dovecot.user,
          pass: dovecot.pass,
          // The test dovecot has no TLS (ssl = no): plain-text LOGIN allowed for it.
          allow_plain_auth: true,
          ...imap,
        },
      },
    },
  });
  expect(res.status).toBe(200);
  return res;
}

const subjects = async (s: TestServer) =>
  ((await s.call('GET', '/list?limit=200')).body.data as { subject: string }[]).map((t) => t.subject).sort();

async function folder(dovecot: TestDovecot, path: string) {
  const c = await dovecot.client();
  try {
    const box = await c.mailboxOpen(path);
    return box.exists;
  } finally {
    await c.logout();
  }
}

describe('the IMAP reader', () => {
  it('reads waiting and new mail (IDLE), moves it to Processed, survives the mailbox going away and a restart', async () => {
    const dovecot = await startDovecot();
    cleanup.push(() => dovecot.close());
    const c = await dovecot.client();
    await c.append('INBOX', mail(1));
    await c.append('INBOX', mail(2, 'grace@example.org'));
    await c.logout();

    const s = await startServer();
    cleanup.push(() => s.close());
    const written = await configure(s, dovecot);
    // The password is write-only.
    expect(written.body.mail.inbound.imap).toMatchObject({ host: '127.0.0.1', pass_set: true });
    expect(JSON.stringify((await s.call('GET', '/admin?r=mail')).body)).not.toContain(dovecot.pass);

    await eventually(async () => (await subjects(s)).length === 2, 15_000, 'the waiting mail');
    expect(await subjects(s)).toEqual(['by imap 1', 'by imap 2']);
    await eventually(async () => (await folder(dovecot, 'INBOX')) === 0, 5_000, 'INBOX to empty');
    expect(await folder(dovecot, 'Processed')).toBe(2);

    // New mail while connected: noticed through IDLE, well before the 60 s poll.
    const started = Date.now();
    const c2 = await dovecot.client();
    await c2.append('INBOX', mail(3));
    await c2.logout();
    await eventually(async () => (await subjects(s)).includes('by imap 3'), 10_000, 'mail 3');
    expect(Date.now() - started).toBeLessThan(10_000);

    // The mailbox goes away and comes back: the reader connects again and reads what arrived.
    await dovecot.stop();
    await dovecot.start();
    const c3 = await dovecot.client();
    await c3.append('INBOX', mail(4));
    await c3.logout();
    await eventually(async () => (await subjects(s)).includes('by imap 4'), 30_000, 'mail 4 after the outage');

    // A restart of the server reads nothing twice.
    await s.close({ keepData: true });
    const again = await startServer({ dataDir: s.dataDir, keys: s.keys });
    cleanup.push(() => again.close());
    const c4 = await dovecot.client();
    await c4.append('INBOX', mail(5));
    await c4.logout();
    await eventually(
      async () => (await subjects(again)).includes('by imap 5'),
      15_000,
      'mail 5 after the restart',
    ).catch((e: Error) => {
      throw new Error(e.message + again.logs.join('\n'));
    });
    expect(await subjects(again)).toEqual(['by imap 1', 'by imap 2', 'by imap 3', 'by imap 4', 'by imap 5']);
    expect(await folder(dovecot, 'Processed')).toBe(5);
  });

  it('without a processed folder, flags read mail \\Seen and reads only unseen mail', async () => {
    const dovecot = await startDovecot();
    cleanup.push(() => dovecot.close());
    const c = await dovecot.client();
    await c.append('INBOX', mail(1), ['\\Seen']); // read by a person before: not a new mail
    await c.append('INBOX', mail(2));
    await c.logout();
    const s = await startServer();
    cleanup.push(() => s.close());
    await configure(s, dovecot, { processed_folder: null });
    await eventually(async () => (await subjects(s)).length === 1, 15_000, 'the unseen mail');
    expect(await subjects(s)).toEqual(['by imap 2']);
    const look = await dovecot.client();
    await look.mailboxOpen('INBOX');
    expect(await look.search({ seen: false }, { uid: true })).toEqual([]);
    expect(look.mailbox && look.mailbox.exists).toBe(2); // both kept in the folder
    await look.logout();
  });

  it('reports a wrong password in the log and reads nothing', async () => {
    const dovecot = await startDovecot();
    cleanup.push(() => dovecot.close());
    const s = await startServer();
    cleanup.push(() => s.close());
    await configure(s, dovecot, { pass: 'wrong' });
    await eventually(() => s.logs.some((l) => l.includes('IMAP session ended')), 15_000, 'the failed login');
    expect(await subjects(s)).toEqual([]);
  });
});
