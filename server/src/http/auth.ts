import type { Context } from 'koa';
import { mayAccess, type Access, type RequestActor } from '../model/index.js';
import { ApiError } from './errors.js';

/**
 * One way a request can say who it is. Returns undefined when the request does not carry this
 * credential, the actor when it does and it holds; throws (401, 429) when it carries one that does
 * not. The bearer key (keys/bearer.ts) is one; the console's session cookie plugs in beside it, as
 * another Credential in the list createApp hands the routes.
 */
export type Credential = (ctx: Context) => Promise<RequestActor | undefined>;

/** The first credential the request carries decides; none at all is 401 missing_api_key. */
export async function identify(ctx: Context, credentials: readonly Credential[]): Promise<RequestActor> {
  for (const credential of credentials) {
    const actor = await credential(ctx);
    if (actor) return actor;
  }
  throw new ApiError(401, 'missing_api_key', 'Send your API key as "Authorization: Bearer <key>".');
}

/**
 * The permission (403), checked after the credential and before anything else: the route's access
 * level, then a public key's allowed origins.
 */
export function checkAccess(ctx: Context, actor: RequestActor, access: Access) {
  if (!mayAccess(actor, access)) {
    if (access === 'staff') throw new ApiError(403, 'secret_key_required', 'This endpoint needs a secret key.');
    if (actor.kind === 'agent') throw new ApiError(403, 'admin_required', 'This needs an agent with the admin role.');
    throw new ApiError(
      403,
      'live_secret_key_required',
      'This needs a live secret key (sk_live_): it changes live settings.',
    );
  }
  if (actor.kind !== 'customer' || !actor.key.origins.length) return;
  const origin = ctx.req.headers.origin; // as ctx.get reads it, without Koa's accessor
  if (origin && !actor.key.origins.includes(origin)) {
    // Named, so that a site owner sees which address to add to the key's origins (cut: it is echoed).
    const named = origin.slice(0, 200);
    throw new ApiError(
      403,
      'origin_not_allowed',
      `This public key may not be used from ${named}: add it to the key's origins to allow it.`,
      { values: { origin: named } },
    );
  }
}

/** What logs show of an actor: a key's display prefix, an agent's id. */
export const actorLabel = (actor: RequestActor | null | undefined) =>
  !actor ? undefined : actor.kind === 'agent' ? `agent:${actor.agent.id}` : actor.key.prefix;
