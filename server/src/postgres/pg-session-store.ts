import type { StoredSession } from '../model/index.js';
import type { SessionStore } from '../store/session-store.js';
import type { Database } from './database.js';

// Failures older than this are of no use to any window.
const KEEP_FAILURES_MS = 24 * 60 * 60 * 1000;

interface Row {
  hash: string;
  agent_id: string;
  password: string;
  created_at: string;
  last_seen_at: string;
}
const session = (r: Row): StoredSession => ({
  hash: r.hash,
  agent_id: r.agent_id,
  password: r.password,
  created_at: Number(r.created_at),
  last_seen_at: Number(r.last_seen_at),
});

/**
 * Sessions and failed sign-ins in two tables every instance shares: a sign-out, a revocation or a
 * lockout holds on all of them at once. Statements go to the pool, never into the request's unit of
 * work: a failed sign-in answers 401, which rolls the unit back, and must be counted all the same.
 */
export class PgSessionStore implements SessionStore {
  constructor(private readonly db: Database) {}

  async add(s: StoredSession) {
    await this.db.sql`INSERT INTO agent_sessions (hash, agent_id, password, created_at, last_seen_at)
      VALUES (${s.hash}, ${s.agent_id}, ${s.password}, ${s.created_at}, ${s.last_seen_at})`;
  }

  async find(hash: string) {
    const [row] = await this.db.sql<Row[]>`SELECT * FROM agent_sessions WHERE hash = ${hash}`;
    return row && session(row);
  }

  async touch(hash: string, at: number) {
    await this.db.sql`UPDATE agent_sessions SET last_seen_at = GREATEST(last_seen_at, ${at}) WHERE hash = ${hash}`;
  }

  async remove(hash: string) {
    await this.db.sql`DELETE FROM agent_sessions WHERE hash = ${hash}`;
  }

  async removeAgent(agentId: string, keepPassword?: string) {
    await this.db.sql`DELETE FROM agent_sessions WHERE agent_id = ${agentId} AND password <> ${keepPassword ?? ''}`;
  }

  async removeExpired(idleBefore: number, createdBefore: number) {
    await this.db.sql`DELETE FROM agent_sessions WHERE last_seen_at < ${idleBefore} OR created_at < ${createdBefore}`;
  }

  async addFailure(keys: readonly string[], at: number) {
    if (!keys.length) return;
    const rows = keys.map((key) => ({ key, at }));
    await this.db.sql`INSERT INTO sign_in_failures ${this.db.sql(rows, 'key', 'at')}`;
    // Failures older than any window are of no more use: each new one clears them away.
    await this.db.sql`DELETE FROM sign_in_failures WHERE at < ${at - KEEP_FAILURES_MS}`;
  }

  async removeFailure(keys: readonly string[], at: number) {
    for (const key of keys)
      await this.db.sql`DELETE FROM sign_in_failures WHERE ctid IN
        (SELECT ctid FROM sign_in_failures WHERE key = ${key} AND at = ${at} LIMIT 1)`;
  }

  async failures(key: string, since: number) {
    const rows = await this.db.sql<{ at: string }[]>`
      SELECT at FROM sign_in_failures WHERE key = ${key} AND at >= ${since} ORDER BY at`;
    return rows.map((r) => Number(r.at));
  }

  async clearFailures(key: string) {
    await this.db.sql`DELETE FROM sign_in_failures WHERE key = ${key}`;
  }

  async addChallenge(challenge: string, agentId: string | null, expiresAt: number) {
    // Expired challenges go as new ones come: no sweeper is needed.
    await this.db.sql`DELETE FROM webauthn_challenges WHERE expires_at < ${expiresAt - KEEP_FAILURES_MS}`;
    await this.db.sql`INSERT INTO webauthn_challenges (challenge, agent_id, expires_at)
      VALUES (${challenge}, ${agentId}, ${expiresAt})`;
  }

  async takeChallenge(challenge: string, now: number) {
    // DELETE … RETURNING: of two instances taking it at once, one gets the row.
    const [row] = await this.db.sql<{ agent_id: string | null; expires_at: string }[]>`
      DELETE FROM webauthn_challenges WHERE challenge = ${challenge} RETURNING agent_id, expires_at`;
    return row && Number(row.expires_at) > now ? { agentId: row.agent_id } : undefined;
  }
}
