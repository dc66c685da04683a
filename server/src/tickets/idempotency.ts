import { createHash } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { IDEMPOTENCY_MS, IdempotencyKeyTaken, type IdempotencyRecord } from '../store/ticket-store.js';

export type { IdempotencyRecord };

/** A record found in the store, with a way to answer it again (undefined when its ticket is gone). */
export interface Recalled<T> {
  hash: string;
  at: string;
  answer(): Promise<T | undefined>;
}

interface Entry {
  bodyHash: string;
  expiresAt: number;
  answer: Promise<unknown>;
}

const MAX_ENTRIES = 50_000;
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` for /create and /reply (docs/api.md, "Retries"): the same key, key-holder and body
 * within 24 h answer the first answer again; a concurrent retry waits for the first attempt. Failed
 * attempts are forgotten, so a retry after an error tries again.
 *
 * Answers live here in memory; the key itself is written with the ticket (`work` gets the record to
 * store), so after a restart, or on another instance, `recall` finds it and the retry is answered with
 * the ticket as it now stands instead of filing it twice. When two instances get the same key at once,
 * the store lets one of them have it (IdempotencyKeyTaken) and the other answers what that one made.
 */
export class IdempotencyCache {
  private entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  async run<T>(
    scope: string,
    key: string | undefined,
    body: unknown,
    work: (record?: IdempotencyRecord) => Promise<T>,
    recall: (key: string) => Promise<Recalled<T> | undefined>,
  ): Promise<T> {
    if (key === undefined || key === '') return work();
    if (!VALID_KEY.test(key)) {
      throw new ApiError(400, 'validation_failed', 'Idempotency-Key must be 1-255 printable characters.', {
        param: 'Idempotency-Key',
        details: [{ param: 'Idempotency-Key', message: 'must be 1-255 printable characters' }],
      });
    }
    const now = this.now();
    const id = `${scope}\u0000${key}`;
    const bodyHash = createHash('sha256').update(stableJson(body)).digest('hex');
    const reused = () =>
      new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
    const existing = this.entries.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.bodyHash !== bodyHash) throw reused();
      // The same scope and key always run the same work, so the answer has the same type.
      return existing.answer as Promise<T>;
    }
    const answerStored = async () => {
      const stored = await recall(id);
      if (!stored || Date.parse(stored.at) + IDEMPOTENCY_MS <= now) return undefined;
      if (stored.hash !== bodyHash) throw reused();
      return stored.answer();
    };
    const answer = (async () => {
      const again = await answerStored();
      if (again) return again;
      try {
        return await work({ key: id, hash: bodyHash, at: new Date(now).toISOString() });
      } catch (err) {
        // Another instance stored this key while we worked (the database's unique key said so, after
        // that request committed): answer what it made, as a retry on that instance would get.
        if (!(err instanceof IdempotencyKeyTaken)) throw err;
        const theirs = await answerStored();
        if (!theirs) throw err;
        return theirs;
      }
    })();
    this.entries.set(id, { bodyHash, expiresAt: now + IDEMPOTENCY_MS, answer });
    this.trim(now);
    answer.catch(() => this.entries.delete(id));
    return answer;
  }

  private trim(now: number) {
    if (this.entries.size <= MAX_ENTRIES) return;
    for (const [k, e] of this.entries) {
      if (e.expiresAt <= now || this.entries.size > MAX_ENTRIES) this.entries.delete(k);
      else break;
    }
  }
}

/** JSON with sorted keys, so {a,b} and {b,a} hash alike. Buffers hash by content. */
function stableJson(value: unknown): string {
  if (Buffer.isBuffer(value)) return JSON.stringify(createHash('sha256').update(value).digest('hex'));
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
