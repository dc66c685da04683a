import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Credential } from '../http/auth.js';
import { IDENTITY_HEADER, type ConfigData, type RequestActor } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';

const HEX64 = /^[0-9a-f]{64}$/;
/** As Node's header object names it. */
const IDENTITY = IDENTITY_HEADER.toLowerCase();

/** What the shop computes on its own server: hex HMAC-SHA256 of the email under the identity secret. */
export const signIdentity = (secret: string, email: string) => createHmac('sha256', secret).update(email).digest('hex');

/**
 * The email an X-Ticketing-Identity header proves, or null. The header is `<hex signature>.<email>`,
 * the email percent-encoded (header values cannot carry every address). Anything else, a wrong
 * signature or no secret configured: null, the customer is anonymous (never an error, so a shop whose
 * signing broke still has a working widget). The signature is compared in constant time.
 */
function verifiedEmail(identity: ConfigData['identity'], header: string | undefined): string | null {
  if (!identity.secret || !header) return null;
  const dot = header.indexOf('.');
  const signature = header.slice(0, dot).toLowerCase();
  if (dot < 0 || !HEX64.test(signature)) return null;
  let email: string;
  try {
    email = decodeURIComponent(header.slice(dot + 1));
  } catch {
    return null;
  }
  if (!email || email.length > 254) return null;
  const expected = Buffer.from(signIdentity(identity.secret, email), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? email : null;
}

/**
 * Adds the verified identity to a public key's actor. Only a customer carries one: a secret key
 * sees every ticket anyway.
 */
export function withIdentity(credential: Credential, config: ConfigStore): Credential {
  // A customer without a verified identity is the same for every request with its key (and the same
  // `required` setting): one frozen actor each, instead of a copy per request. The key's actor is
  // itself made once per key record (keys/bearer.ts), so a changed key gets new ones.
  const anonymous = new WeakMap<RequestActor, { required: boolean; actor: RequestActor }>();
  return async (ctx: Context) => {
    const actor = await credential(ctx);
    if (actor?.kind !== 'customer') return actor;
    const { identity } = config.get();
    const header = ctx.req.headers[IDENTITY];
    const email = verifiedEmail(identity, (typeof header === 'string' && header) || undefined);
    if (email !== null) return { ...actor, identity: email, identityRequired: identity.required };
    let known = anonymous.get(actor);
    if (known?.required !== identity.required) {
      known = {
        required: identity.required,
        actor: Object.freeze({ ...actor, identity: null, identityRequired: identity.required }),
      };
      anonymous.set(actor, known);
    }
    return known.actor;
  };
}
