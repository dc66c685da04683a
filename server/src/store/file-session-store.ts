import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { StoredSessionSchema, type StoredSession } from '../model/index.js';
import { writeFileDurable } from './durable-write.js';
import type { SessionStore } from './session-store.js';
import { StartupError } from './startup-error.js';

const SessionFileSchema = z.object({
  sessions: z.array(StoredSessionSchema).default([]),
  /** Failed sign-ins by key (`email|…`, `ip|…`): their times in ms. */
  failures: z.record(z.string(), z.array(z.number())).default({}),
});

// Failures older than this are of no use to any window and are dropped when the file is written.
const KEEP_FAILURES_MS = 24 * 60 * 60 * 1000;
// Challenges expired this long before a new one's expiry are dropped when it is added: the map stays small.
const CHALLENGE_SWEEP_MS = 60 * 60 * 1000;

/**
 * Sessions and failed sign-ins in data/sessions.json, held in memory and written whole and durably
 * after every change, one write after another. The file is made on the first sign-in, not before.
 */
export class FileSessionStore implements SessionStore {
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * WebAuthn challenges live a few minutes in this one process (the JSON store has one instance):
   * they are not written to the file, a restart just makes the browser ask for a new one.
   */
  private readonly challenges = new Map<string, { agentId: string | null; expiresAt: number }>();

  private constructor(
    private readonly path: string,
    private readonly sessions: Map<string, StoredSession>,
    private readonly failed: Map<string, number[]>,
  ) {}

  static async open(dataDir: string): Promise<FileSessionStore> {
    const path = join(dataDir, 'sessions.json');
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    let data: z.infer<typeof SessionFileSchema> = { sessions: [], failures: {} };
    if (text !== undefined) {
      const parsed = (() => {
        try {
          return SessionFileSchema.safeParse(JSON.parse(text));
        } catch {
          return undefined;
        }
      })();
      if (!parsed?.success)
        throw new StartupError(
          `The sessions file ${path} is not what the server wrote.`,
          'Delete it: every agent signs in again, and failed sign-ins are forgotten.',
        );
      data = parsed.data;
    }
    return new FileSessionStore(
      path,
      new Map(data.sessions.map((s) => [s.hash, s])),
      new Map(Object.entries(data.failures)),
    );
  }

  /** Writes the current state after the writes before it; resolves when it is on disk. */
  private save(): Promise<void> {
    const run = this.queue.then(() => {
      const newest = Math.max(0, ...[...this.failed.values()].flat());
      for (const [key, times] of this.failed) {
        const kept = times.filter((t) => t > newest - KEEP_FAILURES_MS);
        if (kept.length) this.failed.set(key, kept);
        else this.failed.delete(key);
      }
      const data = { sessions: [...this.sessions.values()], failures: Object.fromEntries(this.failed) };
      return writeFileDurable(this.path, JSON.stringify(data) + '\n');
    });
    this.queue = run.catch(() => {});
    return run;
  }

  add(session: StoredSession) {
    this.sessions.set(session.hash, { ...session });
    return this.save();
  }

  find(hash: string) {
    const s = this.sessions.get(hash);
    return Promise.resolve(s && { ...s });
  }

  touch(hash: string, at: number) {
    const s = this.sessions.get(hash);
    if (!s) return Promise.resolve();
    s.last_seen_at = Math.max(s.last_seen_at, at);
    return this.save();
  }

  remove(hash: string) {
    if (!this.sessions.delete(hash)) return Promise.resolve();
    return this.save();
  }

  removeAgent(agentId: string, keepPassword?: string) {
    let removed = false;
    for (const s of [...this.sessions.values()])
      if (s.agent_id === agentId && s.password !== keepPassword) removed = this.sessions.delete(s.hash) || removed;
    return removed ? this.save() : Promise.resolve();
  }

  removeExpired(idleBefore: number, createdBefore: number) {
    let removed = false;
    for (const s of [...this.sessions.values()])
      if (s.last_seen_at < idleBefore || s.created_at < createdBefore)
        removed = this.sessions.delete(s.hash) || removed;
    return removed ? this.save() : Promise.resolve();
  }

  addFailure(keys: readonly string[], at: number) {
    for (const key of keys) this.failed.set(key, [...(this.failed.get(key) ?? []), at]);
    return this.save();
  }

  removeFailure(keys: readonly string[], at: number) {
    for (const key of keys) {
      const times = this.failed.get(key) ?? [];
      const i = times.indexOf(at);
      if (i >= 0) times.splice(i, 1);
    }
    return this.save();
  }

  failures(key: string, since: number) {
    return Promise.resolve((this.failed.get(key) ?? []).filter((t) => t >= since).sort((a, b) => a - b));
  }

  clearFailures(key: string) {
    if (!this.failed.delete(key)) return Promise.resolve();
    return this.save();
  }

  addChallenge(challenge: string, agentId: string | null, expiresAt: number) {
    for (const [c, v] of this.challenges) if (v.expiresAt <= expiresAt - CHALLENGE_SWEEP_MS) this.challenges.delete(c);
    this.challenges.set(challenge, { agentId, expiresAt });
    return Promise.resolve();
  }

  takeChallenge(challenge: string, now: number) {
    const found = this.challenges.get(challenge);
    this.challenges.delete(challenge);
    return Promise.resolve(found && found.expiresAt > now ? { agentId: found.agentId } : undefined);
  }
}
