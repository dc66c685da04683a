import { readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { randomToken } from '../model/index.js';
import { makeDir, removeStaleTemps, syncDir, unlinkDurable, writeFileDurable } from '../store/durable-write.js';
import { UnusableMail, type MailIn, type Outcome } from './mail-in.js';

/** Where mail waits under the data directory: received, kept for review, or unusable. */
export const SPOOL_DIRS = { spool: 'mail-in/spool', refused: 'mail-in/refused', failed: 'mail-in/failed' } as const;

/** Attempts a mail gets when processing fails for another reason than the mail (a store error). */
const ATTEMPTS = 5;

/**
 * Received mail, durable before the sender hears "accepted": each mail is written (fsynced) to the
 * spool, then processed from there and removed once it became a ticket or reply (or was dropped as
 * automatic mail). A crash between the two leaves the file, processed at the next start; processing
 * is idempotent by Message-ID, so a mail processed twice is one ticket. A mail the pipeline cannot
 * use goes to `failed`, a blocked or rate-limited one to `refused`, each with a `.reason` file beside
 * it: never lost, never silently.
 */
export class MailSpool {
  private queue: Promise<void> = Promise.resolve();
  private failures = new Map<string, number>();
  /**
   * The client address each received mail came from (SMTP), for the per-client limit on new tickets.
   * Kept in memory only: a mail processed after a restart counts for its sender address alone.
   */
  private clients = new Map<string, string>();
  /** Each processed mail's outcome (tests, logs). */
  readonly outcomes: { file: string; outcome: Outcome | { kind: 'failed'; reason: string } }[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly mailIn: MailIn,
    private readonly logger: Logger,
  ) {}

  private dir(which: keyof typeof SPOOL_DIRS) {
    return join(this.dataDir, SPOOL_DIRS[which]);
  }

  async open() {
    for (const d of Object.keys(SPOOL_DIRS) as (keyof typeof SPOOL_DIRS)[]) await makeDir(this.dir(d));
    // A crash while a mail was being written leaves a temp file, or its recipients without the mail:
    // that mail never got its 250 (the sender retries it), so both go.
    const spool = this.dir('spool');
    await removeStaleTemps(spool);
    const files = await readdir(spool);
    for (const f of files)
      if (f.endsWith('.rcpt') && !files.includes(`${f.slice(0, -5)}.eml`)) await unlinkDurable(join(spool, f));
    void this.drain(); // what a crash or stop left behind
  }

  /**
   * Stores one received mail durably; resolves once it is on disk. The envelope's recipients go beside
   * it; `client`: the address of the client that delivered it (the SMTP receiver's), when known.
   */
  async accept(raw: Buffer, recipients: string[], client?: string): Promise<string> {
    const name = `${Date.now().toString().padStart(14, '0')}-${randomToken(12)}`;
    if (client) this.clients.set(name, client);
    // The recipients first: a mail file is only ever processed with them known, or without (headers).
    await writeFileDurable(join(this.dir('spool'), `${name}.rcpt`), JSON.stringify(recipients));
    await writeFileDurable(join(this.dir('spool'), `${name}.eml`), raw);
    void this.drain();
    return name;
  }

  /** Processes every mail in the spool, oldest first, one at a time. */
  drain(): Promise<void> {
    this.queue = this.queue.then(async () => {
      const names = (await readdir(this.dir('spool')).catch(() => []))
        .filter((f) => f.endsWith('.eml'))
        .map((f) => f.slice(0, -4))
        .sort();
      for (const name of names) await this.processOne(name);
    });
    return this.queue;
  }

  /** Resolves once the spool has been worked through (tests). */
  idle() {
    return this.queue;
  }

  private async processOne(name: string) {
    const eml = join(this.dir('spool'), `${name}.eml`);
    const rcpt = join(this.dir('spool'), `${name}.rcpt`);
    let raw: Buffer;
    try {
      raw = await readFile(eml);
    } catch {
      return; // processed by a drain before this one
    }
    const recipients = await readFile(rcpt, 'utf8')
      .then((t) => JSON.parse(t) as string[])
      .catch(() => []);
    try {
      const outcome = await this.mailIn.process(raw, recipients, this.clients.get(name));
      this.outcomes.push({ file: name, outcome });
      if (outcome.kind === 'refused') {
        this.logger.warn({ file: name, reason: outcome.reason }, 'mail in: refused, kept for review');
        await this.move(name, 'refused', outcome.reason);
        return;
      }
      this.logger.info({ file: name, ...outcome }, 'mail in');
      await unlinkDurable(eml);
      await unlinkDurable(rcpt);
      this.clients.delete(name);
    } catch (err) {
      const attempts = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, attempts);
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof UnusableMail || attempts >= ATTEMPTS) {
        this.failures.delete(name);
        this.outcomes.push({ file: name, outcome: { kind: 'failed', reason } });
        this.logger.error({ file: name, reason }, 'mail in: could not be used; kept in the failed folder');
        await this.move(name, 'failed', reason);
      } else {
        this.logger.error({ file: name, err, attempts }, 'mail in: processing failed; it stays in the spool');
      }
    }
  }

  private async move(name: string, to: 'refused' | 'failed', reason: string) {
    this.clients.delete(name);
    const target = this.dir(to);
    await writeFileDurable(join(target, `${name}.reason`), `${reason}\n`);
    await rename(join(this.dir('spool'), `${name}.eml`), join(target, `${name}.eml`));
    await syncDir(target);
    await syncDir(this.dir('spool'));
    await unlinkDurable(join(this.dir('spool'), `${name}.rcpt`));
  }
}
