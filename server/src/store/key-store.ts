import type { AuthKey, StoredKey } from '../model/index.js';

/**
 * The API keys. The JSON-file implementation keeps them in config.json (keys/key-store.ts); a database
 * implementation keeps a table. Lookups are by the SHA-256 of what a request sent: a secret key is
 * never stored, nor compared, in plain text.
 */
export interface KeyStore {
  /** The active key (stored, or from TICKETING_KEYS) whose SHA-256 is `hash`, or undefined. */
  find(hash: string): Promise<AuthKey | undefined>;
  /** Every stored key, revoked ones included, oldest first. */
  list(): Promise<StoredKey[]>;
  /** Stores keys, all in one write (the first start's pair is there whole or not at all). */
  add(...keys: StoredKey[]): Promise<void>;
  /** Marks an active key revoked; the key as it now is, or undefined when there is no such active key. */
  revoke(id: string, at: string): Promise<StoredKey | undefined>;
  /**
   * Replaces an active public key's allowed origins; the key as it now is, or undefined when there is
   * no such active public key. Takes effect at the next request.
   */
  setOrigins(id: string, origins: string[]): Promise<StoredKey | undefined>;
  /** Records `last_used_at` (the caller writes at most once an hour per key). */
  markUsed(id: string, at: string): Promise<void>;
}
