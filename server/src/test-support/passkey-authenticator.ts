import { createHash, randomBytes, sign, generateKeyPairSync } from 'node:crypto';

// A passkey authenticator in a test: what a browser's authenticator signs, made here with a real key
// (P-256, ES256), so the server's WebAuthn checks run in full over HTTP without a browser.

const b64url = (b: Buffer) => b.toString('base64url');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** CBOR's head of a byte string of `length` (< 65536), as an attestation object needs it. */
const bytesHead = (length: number) =>
  length < 24
    ? Buffer.from([0x40 + length])
    : length < 256
      ? Buffer.from([0x58, length])
      : Buffer.from([0x59, length >> 8, length & 0xff]);

/**
 * An authenticator's key: its COSE public key (as stored), the registration it answers and assertions
 * it signs. `uv: false`: an authenticator that only checks presence (a touch), not who the user is.
 * `id`: a credential id of another authenticator's (one agent's passkey claimed by a second).
 */
export function authenticator(rpID: string, options: { uv?: boolean; id?: string } = {}) {
  const flags = options.uv === false ? 0x01 : 0x05;
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} in CBOR.
  const cose = Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from([0x22, 0x58, 0x20]),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  const id = options.id ?? b64url(randomBytes(16));
  return {
    id,
    publicKey: b64url(cose),
    /** The answer to registration options (attestation "none"), as startRegistration gives it. */
    attest(challenge: string, origin: string) {
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin }));
      const rawId = Buffer.from(id, 'base64url');
      // Flags: user present, (verified), attested credential data (0x40); counter 0; AAGUID zero.
      const authData = Buffer.concat([
        sha(rpID),
        Buffer.from([flags | 0x40, 0, 0, 0, 0]),
        Buffer.alloc(16),
        Buffer.from([rawId.length >> 8, rawId.length & 0xff]),
        rawId,
        cose,
      ]);
      // CBOR { "fmt": "none", "attStmt": {}, "authData": <bytes> }.
      const attestationObject = Buffer.concat([
        Buffer.from([0xa3, 0x63]),
        Buffer.from('fmt'),
        Buffer.from([0x64]),
        Buffer.from('none'),
        Buffer.from([0x67]),
        Buffer.from('attStmt'),
        Buffer.from([0xa0, 0x68]),
        Buffer.from('authData'),
        bytesHead(authData.length),
        authData,
      ]);
      return {
        id,
        rawId: id,
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientData),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      };
    },
    assert(challenge: string, origin: string, counter: number, key = privateKey) {
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin }));
      const count = Buffer.alloc(4);
      count.writeUInt32BE(counter);
      // Flags: user present (0x01) and, unless uv is false, verified (0x04).
      const authData = Buffer.concat([sha(rpID), Buffer.from([flags]), count]);
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
