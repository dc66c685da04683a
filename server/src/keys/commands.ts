import { z } from 'zod';
import { SYSTEM, type StoredKey } from '../model/index.js';
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

const NewKeySchema = z.object({
  kind: z.enum(['public', 'secret']),
  mode: z.enum(['live', 'test']),
  origins: z
    .array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin looks like https://shop.example'))
    .max(50)
    .default([]),
  label: z.string().max(200).nullable().default(null),
});

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

/** The CLI acts as the system: the audit log shows it as such, with via: 'cli'. */
const CLI = SYSTEM;

export const listKeys = async (store: KeyStore): Promise<KeyView[]> => (await store.list()).map(view);

/** Creates a key; the full key is in the answer once and nowhere else (a secret key is stored as a hash). */
export async function addKey(store: KeyStore, audit: AuditLog, input: unknown, now = new Date()) {
  const parsed = NewKeySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new KeyCommandError('validation_failed', `${issue.path.join('.') || 'key'}: ${issue.message}`);
  }
  const { kind, mode, origins, label } = parsed.data;
  const { key, stored } = createKey(kind, mode, { origins, label });
  await store.add(stored);
  await audit.append(auditEntry(now, CLI, 'key.created', stored.id, { kind, mode, prefix: stored.prefix, via: 'cli' }));
  return { key, view: view(stored) };
}

/** Revokes one active key, named by id, display prefix or (public keys) the key itself. */
export async function revokeKey(store: KeyStore, audit: AuditLog, target: string, now = new Date()) {
  const matches = (await store.list()).filter(
    (k) => !k.revoked_at && (k.id === target || k.prefix === target || k.key === target),
  );
  if (matches.length === 0) throw new KeyCommandError('key_not_found', `No active key matches "${target}".`);
  if (matches.length > 1)
    throw new KeyCommandError('ambiguous_key', `"${target}" matches ${matches.length} keys; use the key id.`);
  const id = matches[0]!.id;
  const revoked = await store.revoke(id, now.toISOString());
  if (!revoked) throw new KeyCommandError('key_not_found', `No active key matches "${target}".`);
  await audit.append(auditEntry(now, CLI, 'key.revoked', id, { prefix: matches[0]!.prefix, via: 'cli' }));
  return view(revoked);
}
