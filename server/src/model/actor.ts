import type { AgentRole } from './agents.js';
import type { KeyMode } from './keys.js';
import type { ActorRef } from './tickets.js';

/** The key a request came with, as far as anything after authentication needs to know it. */
export interface KeyRef {
  id: string;
  /** The display prefix (first 12 characters): for logs and the audit log. */
  prefix: string;
}

/**
 * Who is acting. Credentials resolve to one of these (http/ puts it on ctx.state.actor); handlers,
 * events and the audit log see the actor, never the credential:
 *  - a customer, with a public key (which is public by design, so the actor carries it for the widget);
 *  - a secret key (support's scripts): `admin` when it is a live key;
 *  - an agent signed in to the console (a session; live mode only);
 *  - the system itself (the scheduler, rules).
 */
export type Actor =
  | {
      kind: 'customer';
      mode: KeyMode;
      key: KeyRef & { origins: string[]; public: string };
      /** The email the shop vouched for (X-Ticketing-Identity, identity/verify.ts); null: anonymous. */
      identity?: string | null;
      /** r=identity `required`: tickets only for a verified customer. */
      identityRequired?: boolean;
    }
  | { kind: 'key'; mode: KeyMode; key: KeyRef; admin: boolean }
  | {
      kind: 'agent';
      mode: 'live';
      agent: { id: string; name: string; role: AgentRole };
      session: string;
      /** When the session last checked the password or a second factor (ms): its start, or a re-check. */
      verified_at: number;
    }
  | { kind: 'system' };

/** An actor behind a request (everyone but the system). */
export type RequestActor = Exclude<Actor, { kind: 'system' }>;

export const SYSTEM: Actor = { kind: 'system' };

/**
 * Who may call a route: anyone without a credential (`open`), any credential (`customer`), support
 * (`staff`: a secret key or an agent), or whoever may change live settings (`admin`: a live secret key
 * or an agent with the admin role).
 */
export const ACCESS_LEVELS = ['open', 'customer', 'staff', 'admin'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** Support: sees the full view of tickets, may act on any ticket of its mode. */
export const isStaff = (a: Actor): a is Extract<Actor, { kind: 'key' | 'agent' }> =>
  a.kind === 'key' || a.kind === 'agent';

/** May change live settings (/admin, /settings writes). */
export const isAdmin = (a: Actor) => (a.kind === 'key' && a.admin) || (a.kind === 'agent' && a.agent.role === 'admin');

/** Whether `actor` may call a route of `access`. */
export function mayAccess(actor: RequestActor, access: Access): boolean {
  if (access === 'staff') return isStaff(actor);
  if (access === 'admin') return isAdmin(actor);
  return true;
}

/** How a ticket's activity and live events name who acted: an agent by id and name, anyone else by kind (never a key). */
export function actorRef(actor: Actor): ActorRef {
  if (actor.kind === 'agent') return { kind: 'agent', id: actor.agent.id, name: actor.agent.name };
  return { kind: actor.kind };
}
