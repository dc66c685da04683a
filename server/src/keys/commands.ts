import { KeyInputSchema, SYSTEM, type Actor, type ApiKeyView, type StoredKey } from '../model/index.js';
import { auditEntry, type AuditLog } from '../audit/audit.js';
import type { KeyStore } from '../store/key-store.js';
import { createKey } from './keys.js';

/**
 * What `ticketing keys` does, on a configuration store: the running server's (over its control
 * socket, so its key ring changes at once) or one the CLI opened with the server stopped. Every
 * change goes to the audit log.
 */

/** A key as the CLI shows it: public keys whole (they are public), secret keys by prefix only. */
export interface KeyView {
  id: string;
  kind: 'public' | 'secret';
  mode: 'live' | 'test';
  state: 'active' | 'revoked';
  prefix: string;
  key: string | null;
  origins: string[];
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export class KeyCommandError extends Error {
  constructor(
    readonly code: 'validation_failed' | 'key_not_found' | 'ambiguous_key',
    message: string,
  ) {
    super(message);
  }
}

const view = (k: StoredKey): KeyView => ({
  id: k.id,
  kind: k.kind,
  mode: k.mode,
  state: k.revoked_at ? 'revoked' : 'active',
  prefix: k.prefix,
  key: k.kind === 'public' ? k.key : null,
  origins: k.origins,
  label: k.label,
  created_at: k.created_at,
  revoked_at: k.revoked_at,
});

/** A key as `/admin r=keys` shows it: the prefix, never the key (not even a public one) nor its hash. */
export const apiKeyView = (k: StoredKey): ApiKeyView => ({
  id: k.id,
  kind: k.kind,
  mode: k.mode,
  state: k.revoked_at ? 'revoked' : 'active',
  prefix: k.prefix,
  origins: k.origins,
  label: k.label,
  created_at: k.created_at,
  revoked_at: k.revoked_at,
  last_used_at: k.last_used_at ?? null,
});

/** Who changed a key: the CLI acts as the system (via: 'cli'), /admin as its caller (via: 'api'). */
export interface KeyChanger {
  actor: Actor;
  via: 'cli' | 'api';
}
const CLI: KeyChanger = { actor: SYSTEM, via: 'cli' };

export const listKeys = async (store: KeyStore): Promise<KeyView[]> => (await store.list()).map(view);

/**
 * Creates a key; the full key is in the answer once and nowhere else (a secret key is stored as a
 * hash). `input` as KeyInputSchema parses it (the CLI's or /admin's, which validated it already).
 */
export async function addKey(store: KeyStore, audit: AuditLog, input: unknown, now = new Date(), by = CLI) {
  const parsed = KeyInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new KeyCommandError('validation_failed', `${issue.path.join('.') || 'key'}: ${issue.message}`);
  }
  const { kind, mode, origins, label } = parsed.data;
  const { key, stored } = createKey(kind, mode, { origins, label });
  await store.add(stored);
  // The audit log names a key by its prefix: the key itself is in no log.
  await audit.append(
    auditEntry(now, by.actor, 'key.created', stored.id, { kind, mode, prefix: stored.prefix, via: by.via }),
  );
  return { key, stored, view: view(stored) };
}

/** A public key's allowed origins, replaced whole; undefined when there is no such active public key. */
export async function setKeyOrigins(
  store: KeyStore,
  audit: AuditLog,
  id: string,
  origins: string[],
  now: Date,
  by: KeyChanger,
) {
  const changed = await store.setOrigins(id, origins);
  if (!changed) return undefined;
  await audit.append(
    auditEntry(now, by.actor, 'key.origins_set', id, { prefix: changed.prefix, origins, via: by.via }),
  );
  return changed;
}

/** Revokes one active key, named by id, display prefix or (public keys) the key itself. */
export async function revokeKey(store: KeyStore, audit: AuditLog, target: string, now = new Date(), by = CLI) {
  const matches = (await store.list()).filter(
    (k) => !k.revoked_at && (k.id === target || k.prefix === target || k.key === target),
  );
  if (matches.length === 0) throw new KeyCommandError('key_not_found', `No active key matches "${target}".`);
  if (matches.length > 1)
    throw new KeyCommandError('ambiguous_key', `"${target}" matches ${matches.length} keys; use the key id.`);
  const id = matches[0]!.id;
  const revoked = await store.revoke(id, now.toISOString());
  if (!revoked) throw new KeyCommandError('key_not_found', `No active key matches "${target}".`);
  await audit.append(auditEntry(now, by.actor, 'key.revoked', id, { prefix: matches[0]!.prefix, via: by.via }));
  return { stored: revoked, view: view(revoked) };
}
