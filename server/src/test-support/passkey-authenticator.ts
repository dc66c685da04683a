import { createHash, randomBytes, sign, generateKeyPairSync } from 'node:crypto';

// A passkey authenticator in a test: what a browser's authenticator signs, made here with a real key
// (P-256, ES256), so the server's WebAuthn checks run in full over HTTP without a browser.

const b64url = (b: Buffer) => b.toString('base64url');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** An authenticator's key: its COSE public key (as stored) and assertions it signs. */
export function authenticator(rpID: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} in CBOR.
  const cose = Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from([0x22, 0x58, 0x20]),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  const id = b64url(randomBytes(16));
  return {
    id,
    publicKey: b64url(cose),
    assert(challenge: string, origin: string, counter: number, key = privateKey) {
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin }));
      const count = Buffer.alloc(4);
      count.writeUInt32BE(counter);
      // Flags: user present (0x01) and verified (0x04).
      const authData = Buffer.concat([sha(rpID), Buffer.from([0x05]), count]);
      const signature = sign('sha256', Buffer.concat([authData, sha(clientData)]), key);
      return {
        id,
        rawId: id,
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientData),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
        },
        clientExtensionResults: {},
      };
    },
  };
}
