// Identifiers (docs/api.md, "Identifiers"): a prefix and random letters and digits from the CSPRNG.
// Web Crypto's getRandomValues (in Node and in browsers alike), so the model needs no Node module.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of [A-Za-z0-9] from the CSPRNG, without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 248 = 4 * 62: bytes above it would favour the first letters.
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const ID_PREFIXES = ['tkt', 'rpl', 'fil', 'agt', 'art', 'aud', 'evt', 'key', 'whl', 'act', 'cno'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** 20 characters = 119 bits: ids act as capabilities, so they must not be guessable. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomToken(20)}`;

// One expression per prefix, made once: isId runs on every request that names a ticket (see BENCHMARKS.md).
const ID_PATTERNS = Object.fromEntries(
  ID_PREFIXES.map((prefix) => [prefix, new RegExp(`^${prefix}_[A-Za-z0-9]{16,64}$`)]),
) as Record<IdPrefix, RegExp>;

export const isId = (prefix: IdPrefix, value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERNS[prefix].test(value);
