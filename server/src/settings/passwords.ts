import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((ok, fail) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? fail(err) : ok(key))),
  );

// N = 2^15, r = 8, p = 1: about 32 MB and ~100 ms per hash here, the cost OWASP's cheat sheet gives for
// scrypt. The parameters are stored with the hash, so they can be raised later without a migration.
const PARAMS = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** An agent's password as stored: `scrypt$N$r$p$<salt>$<key>` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Whether `password` matches a stored hash, in constant time. A malformed hash matches nothing. With
 * no hash (an unknown email), a fixed dummy hash is checked instead, so the answer takes as long.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? (await dummyHash())).split('$');
  const [scheme, n, r, p, salt, key] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt') return false;
  const expected = Buffer.from(key!, 'base64');
  const N = Number(n);
  const params = { N, r: Number(r), p: Number(p), maxmem: Math.max(PARAMS.maxmem, 256 * N * Number(r)) };
  const actual = await scrypt(password, Buffer.from(salt!, 'base64'), expected.length, params);
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword(randomBytes(16).toString('hex')));
