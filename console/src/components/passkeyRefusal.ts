import { fill, type Strings } from '../i18n/t.js';

/** A host that is an IP address (v4, or v6 in brackets): WebAuthn takes only a domain as the relying party. */
const isIpHost = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');

/**
 * Why this browser will not use a passkey at this address, in words an agent can act on, or null. Browsers
 * refuse passkeys at an IP address (`http://127.0.0.1:3000`, the address a server used to print) and on
 * insecure origins, before any authenticator is asked; they take `http://localhost` and https. `err`
 * is what the WebAuthn call threw (a SecurityError, which @simplewebauthn/browser names
 * ERROR_INVALID_DOMAIN or ERROR_INVALID_RP_ID), when there was one.
 */
export function passkeyRefusal(t: Strings, err?: unknown): string | null {
  const { hostname, origin, port, pathname } = location;
  const code = (err as { code?: unknown } | null)?.code;
  const security =
    (err instanceof Error && err.name === 'SecurityError') ||
    code === 'ERROR_INVALID_DOMAIN' ||
    code === 'ERROR_INVALID_RP_ID';
  if (typeof PublicKeyCredential === 'undefined' && isSecureContext && !security) return t.passkeyUnsupported;
  if (!security && isSecureContext && !isIpHost(hostname)) return null;
  // The same server at `localhost` is the fix where the address is a loopback one.
  const loopback = hostname === '127.0.0.1' || hostname === '[::1]';
  return loopback
    ? fill(t.passkeyRefusedLocal, { origin, better: `http://localhost${port ? `:${port}` : ''}${pathname}` })
    : fill(t.passkeyRefused, { origin });
}
