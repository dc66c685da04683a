import { randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';

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
