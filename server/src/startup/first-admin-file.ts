import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ConfigStore } from '../store/config-store.js';
import { unlinkDurable } from '../store/durable-write.js';

/** Where the first start writes the admin's one-time sign-in when standard output is no terminal. */
export const firstAdminPasswordPath = (dataDir: string) => join(dataDir, 'first-admin-password.txt');

/**
 * Removes the first admin's password file once the password in it is spent: the admin chose their
 * own (or got a new one-time password), or is gone. A dead password left on disk tells a reader of a
 * backup or of the directory which email is the admin's, for nothing. Checked at start (a change
 * made while this server was stopped, by the CLI or another instance) and on every change of the
 * agents; the file's password is compared with nothing: a changed hash means it is spent.
 */
export async function forgetFirstAdminPassword(configStore: ConfigStore, dataDir: string, logger: Logger) {
  const path = firstAdminPasswordPath(dataDir);
  const email = await readFile(path, 'utf8').then(
    (text) => /^email: (\S+)$/m.exec(text)?.[1],
    () => undefined,
  );
  if (!email) return;
  const agentOf = () => configStore.get().agents.find((a) => a.email === email);
  const spent = () => {
    const agent = agentOf();
    return !agent || !agent.must_change_password || agent.password_hash !== hashAtStart;
  };
  const hashAtStart = agentOf()?.password_hash;
  let removed = false;
  const remove = () => {
    if (removed || !spent()) return;
    removed = true;
    unlinkDurable(path).then(
      () => logger.info({ path }, 'removed the first admin’s password file: the password in it is spent'),
      (err: unknown) => logger.warn({ err, path }, 'could not remove the first admin’s password file'),
    );
  };
  remove();
  configStore.onChange(remove);
}
