import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ImapFlow } from 'imapflow';
import { freePort, untilListening } from './smtp.js';

const DOVECOT = '/usr/sbin/dovecot';

/** Debian's dovecot on loopback with a throwaway configuration, one mailbox user and plain IMAP. */
export interface TestDovecot {
  port: number;
  user: string;
  pass: string;
  /** An IMAP client logged in as the mailbox user (for the test's own look at the mailbox). */
  client(): Promise<ImapFlow>;
  /** Stops the server (the mail stays on disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const idOf = (name: string, flag: '-u' | '-g') => Number(execFileSync('id', [flag, name]).toString().trim());

export async function startDovecot(): Promise<TestDovecot> {
  const dir = await mkdtemp(join(tmpdir(), 'ticketing-dovecot-'));
  const port = await freePort();
  const user = 'support';
  const pass = 'mailbox-password-canary';
  // As root, dovecot's login processes must run as its own unprivileged users (the package makes
  // them); as anyone else, everything runs as that user.
  const root = process.getuid?.() === 0;
  const me = userInfo().username;
  const mailUid = root ? idOf('dovecot', '-u') : process.getuid!();
  const mailGid = root ? idOf('dovecot', '-g') : process.getgid!();
  for (const d of ['run', 'state', 'home']) await mkdir(join(dir, d));
  await chmod(dir, 0o755);
  if (root) await chown(join(dir, 'home'), mailUid, mailGid);
  await writeFile(join(dir, 'passwd'), `${user}:{PLAIN}${pass}\n`);
  await writeFile(
    join(dir, 'dovecot.conf'),
    `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${root ? 'dovecot' : me}
default_internal_group = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = 0
mail_location = maildir:${dir}/home/%u/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailUid} gid=${mailGid} home=${dir}/home/%u
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
}
service submission-login {
  inet_listener submission {
    port = 0
  }
}
`,
  );
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
    await untilListening(port, 'dovecot');
  };
  const stop = async () => {
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((ok) => proc!.once('exit', ok));
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    port,
    user,
    pass,
    async client() {
      const c = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass }, logger: false });
      await c.connect();
      return c;
    },
    stop,
    start,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
