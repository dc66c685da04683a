import type { StoredSession } from '../model/index.js';

/**
 * Agents' console sessions and failed sign-ins. The JSON-file implementation keeps them in
 * sessions.json in the data directory (store/file-session-store.ts); PostgreSQL keeps two tables that
 * every instance shares (postgres/pg-session-store.ts). Both survive a restart: a lockout must not
 * end because the server was restarted.
 */
export interface SessionStore {
  /** Stores a new session. */
  add(session: StoredSession): Promise<void>;
  /** The session whose cookie hashes to `hash`. */
  find(hash: string): Promise<StoredSession | undefined>;
  /** Records that the session was used at `at` (ms). */
  touch(hash: string, at: number): Promise<void>;
  /** Ends one session; nothing happens when it is gone already. */
  remove(hash: string): Promise<void>;
  /**
   * Ends every session of an agent; with `keepPassword`, only those begun with another password
   * (StoredSession.password), so the session a password change starts is kept.
   */
  removeAgent(agentId: string, keepPassword?: string): Promise<void>;
  /** Ends every session begun or last used before these times (ms): the expired ones. */
  removeExpired(idleBefore: number, createdBefore: number): Promise<void>;

  /** Counts a failed sign-in under each of `keys` (an email, an address) at `at` (ms). */
  addFailure(keys: readonly string[], at: number): Promise<void>;
  /** The times (ms, oldest first) of the failures under `key` since `since`. */
  failures(key: string, since: number): Promise<number[]>;
  /** Takes back one failure at `at` under each of `keys` (an attempt that was not one after all). */
  removeFailure(keys: readonly string[], at: number): Promise<void>;
  /** Forgets the failures under `key` (a successful sign-in clears its email's). */
  clearFailures(key: string): Promise<void>;

  /**
   * Keeps a WebAuthn challenge the server handed out, for `agentId` (adding a passkey) or for
   * anyone (`null`: signing in with one), until `expiresAt` (ms).
   */
  addChallenge(challenge: string, agentId: string | null, expiresAt: number): Promise<void>;
  /**
   * Takes a challenge away and answers whom it was for, when it was there and not expired at `now`;
   * of two instances taking the same challenge at once, only one gets it (single use).
   */
  takeChallenge(challenge: string, now: number): Promise<{ agentId: string | null } | undefined>;
}
