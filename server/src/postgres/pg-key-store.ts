import type postgres from 'postgres';
import { KeyRing, sha256 } from '../keys/keys.js';
import type { AuthKey, StoredKey } from '../model/index.js';
import type { KeyStore } from '../store/key-store.js';
import type { Database } from './database.js';

/** What a key is found by: the SHA-256 of the full key (a public key is stored whole, a secret one as its hash). */
const hashOf = (k: StoredKey) => (k.kind === 'public' ? sha256(k.key ?? '') : k.hash!);

const authKey = (k: StoredKey): AuthKey => ({
  id: k.id,
  kind: k.kind,
  mode: k.mode,
  prefix: k.prefix,
  origins: k.origins,
  last_used_at: k.last_used_at ?? null,
});

/**
 * API keys in their own table, looked up by hash on every request: a key revoked on one instance is
 * refused by every instance from the moment the revocation commits. TICKETING_KEYS are found in
 * memory, never stored.
 */
export class PgKeyStore implements KeyStore {
  private readonly envRing: KeyRing;

  constructor(
    private readonly db: Database,
    envKeys: string[] = [],
  ) {
    this.envRing = new KeyRing([], envKeys);
  }

  async find(hash: string): Promise<AuthKey | undefined> {
    const env = this.envRing.find(hash);
    if (env) return env;
    const sql = await this.db.q();
    const [row] = await sql<{ data: StoredKey }[]>`SELECT data FROM api_keys WHERE hash = ${hash} AND NOT revoked`;
    return row && authKey(row.data);
  }

  async list(): Promise<StoredKey[]> {
    const sql = await this.db.q();
    return (await sql<{ data: StoredKey }[]>`SELECT data FROM api_keys ORDER BY seq`).map((r) => r.data);
  }

  add(...keys: StoredKey[]): Promise<void> {
    return this.db.unit(async () => {
      const sql = await this.db.q();
      for (const k of keys)
        await sql`INSERT INTO api_keys (id, hash, data, revoked)
          VALUES (${k.id}, ${hashOf(k)}, ${sql.json(k as postgres.JSONValue)}, ${k.revoked_at !== null})`;
    });
  }

  async revoke(id: string, at: string): Promise<StoredKey | undefined> {
    const sql = await this.db.q();
    const [row] = await sql<{ data: StoredKey }[]>`
      UPDATE api_keys SET revoked = true, data = jsonb_set(data, '{revoked_at}', to_jsonb(${at}::text))
      WHERE id = ${id} AND NOT revoked RETURNING data`;
    return row?.data;
  }

  async setOrigins(id: string, origins: string[]): Promise<StoredKey | undefined> {
    const sql = await this.db.q();
    // find() reads the row on every request: the next request from any instance sees the new origins.
    const [row] = await sql<{ data: StoredKey }[]>`
      UPDATE api_keys SET data = jsonb_set(data, '{origins}', ${sql.json(origins)})
      WHERE id = ${id} AND NOT revoked AND data->>'kind' = 'public' RETURNING data`;
    return row?.data;
  }

  async markUsed(id: string, at: string): Promise<void> {
    const sql = await this.db.q();
    await sql`UPDATE api_keys SET data = jsonb_set(data, '{last_used_at}', to_jsonb(${at}::text)) WHERE id = ${id}`;
  }
}
