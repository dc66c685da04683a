import { hash as oneShotHash } from 'node:crypto';
import type { AuthKey, KeyKind, KeyMode, StoredKey } from '../model/index.js';
import { newId, randomToken } from '../model/index.js';

export type { AuthKey, KeyKind, KeyMode };

const KEY_FORMAT = /^(pk|sk)_(live|test)_[A-Za-z0-9]{24,128}$/;

export const isWellFormedKey = (key: string) => KEY_FORMAT.test(key);
// One-shot crypto.hash: no Hash object per call (this runs on every request with a key).
export const sha256 = (key: string) => oneShotHash('sha256', key, 'hex');
/** What logs, /me and the audit log show of a key: enough to recognise it, not to use it. */
const keyPrefix = (key: string) => key.slice(0, 12);

function describeKey(key: string): { kind: KeyKind; mode: KeyMode } {
  return { kind: key.startsWith('pk_') ? 'public' : 'secret', mode: key.includes('_live_') ? 'live' : 'test' };
}

/** A new key and what to store of it: the public key itself, or only the hash of a secret key. */
export function createKey(kind: KeyKind, mode: KeyMode, options: { origins?: string[]; label?: string | null } = {}) {
  const key = `${kind === 'public' ? 'pk' : 'sk'}_${mode}_${randomToken(32)}`;
  const stored: StoredKey = {
    id: newId('key'),
    kind,
    mode,
    prefix: keyPrefix(key),
    key: kind === 'public' ? key : null,
    hash: kind === 'secret' ? sha256(key) : null,
    origins: options.origins ?? [],
    label: options.label ?? null,
    created_at: new Date().toISOString(),
    revoked_at: null,
    last_used_at: null,
  };
  return { key, stored };
}

/**
 * Looks keys up by the SHA-256 of what was sent, for both kinds. Secret keys never exist in plain
 * text on the server, and a map keyed by a hash gives a timing attacker nothing to walk.
 */
export class KeyRing {
  private byHash = new Map<string, AuthKey>();

  constructor(stored: StoredKey[], envKeys: string[]) {
    for (const k of stored) {
      if (k.revoked_at) continue;
      const hash = k.kind === 'public' ? (k.key ? sha256(k.key) : null) : k.hash;
      if (hash)
        this.byHash.set(hash, {
          id: k.id,
          kind: k.kind,
          mode: k.mode,
          prefix: k.prefix,
          origins: k.origins,
          last_used_at: k.last_used_at,
        });
    }
    for (const key of envKeys) {
      if (!isWellFormedKey(key)) continue; // rejected at boot with a message, see checkEnvKeys
      this.byHash.set(sha256(key), {
        id: `env:${keyPrefix(key)}`,
        ...describeKey(key),
        prefix: keyPrefix(key),
        origins: [],
      });
    }
  }

  /** The key whose SHA-256 is `hash`. */
  find(hash: string): AuthKey | undefined {
    return this.byHash.get(hash);
  }
}

export function checkEnvKeys(envKeys: string[]): string[] {
  return envKeys
    .filter((k) => !isWellFormedKey(k))
    .map((k) => `TICKETING_KEYS holds a malformed key starting "${k.slice(0, 8)}"`);
}
