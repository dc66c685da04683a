import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((ok, fail) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? fail(err) : ok(key))),
  );

// N = 2^15, r = 8, p = 1: about 32 MB and ~100 ms per hash here, the cost OWASP's cheat sheet gives for
// scrypt. The parameters are stored with the hash, so they can be raised later without a migration.
const FULL = { N: 2 ** 15, r: 8, p: 1 };
const MAXMEM = 64 * 1024 * 1024;

// The test suite's cost (N = 2^10, about 1 ms): its servers make a first admin on every start and its
// agents sign in hundreds of times, and at the full cost that hashing was minutes of CPU per run. Only
// the test set-up (vitest.config.ts) sets TICKETING_TEST_PASSWORD_COST; without it, as in production,
// every hash has the full cost. A hash records its parameters, so hashes of either cost verify.
const TEST = { N: 2 ** 10, r: 8, p: 1 };
const params = () => (process.env.TICKETING_TEST_PASSWORD_COST === 'low' ? TEST : FULL);

/** An agent's password as stored: `scrypt$N$r$p$<salt>$<key>` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = params();
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, { N, r, p, maxmem: MAXMEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Whether `password` matches a stored hash, in constant time. A malformed hash matches nothing. With
 * no hash (an unknown email), a fixed dummy hash is checked instead, so the answer takes as long.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? (await dummyHash(params().N))).split('$');
  const [scheme, n, r, p, salt, key] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt') return false;
  const expected = Buffer.from(key!, 'base64');
  const N = Number(n);
  const options = { N, r: Number(r), p: Number(p), maxmem: Math.max(MAXMEM, 256 * N * Number(r)) };
  const actual = await scrypt(password, Buffer.from(salt!, 'base64'), expected.length, options);
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}

// One dummy per cost, so an unknown email costs what a known one's hash of the current cost does.
const dummies = new Map<number, Promise<string>>();
function dummyHash(N: number) {
  let dummy = dummies.get(N);
  if (!dummy) dummies.set(N, (dummy = hashPassword(randomBytes(16).toString('hex'))));
  return dummy;
}
