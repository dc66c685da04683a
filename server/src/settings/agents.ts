import type { z } from 'zod';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { AgentInputSchema, StoredAgent } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { newId, randomToken } from '../model/index.js';
import { hashPassword } from './passwords.js';

const isActiveAdmin = (a: StoredAgent) => a.active && a.role === 'admin';

/**
 * Nobody may lock the portal's owners out of the console: a change that leaves no active admin where
 * there was one (demoting, deactivating or deleting the last) is refused. A portal run with the
 * secret key alone (no agent admin ever) is not affected.
 */
function keepAnAdmin(before: StoredAgent[], after: StoredAgent[]) {
  if (before.some(isActiveAdmin) && !after.some(isActiveAdmin))
    throw new ApiError(
      409,
      'last_admin',
      'This is the last active admin: make another agent an admin first, so that someone can still open Settings.',
    );
}

/**
 * Creates an agent (no `id`) or updates one (`id`; 404 when unknown). Emails are unique regardless of
 * case. A password is stored only as its scrypt hash; an omitted password, two-factor secret or
 * passkey list keeps the stored one; a new password removes the agent's passkeys. With `one_time_password` the server makes the password (answered
 * once, as `password`), and the agent must replace it at their first sign-in.
 */
export async function upsertAgent(
  store: ConfigStore,
  input: z.output<typeof AgentInputSchema>,
  at: Date,
): Promise<{ agent: StoredAgent; created: boolean; password?: string }> {
  const agents = store.get().agents;
  const existing = input.id === undefined ? undefined : agents.find((a) => a.id === input.id);
  if (input.id !== undefined && !existing) throw notFound('agent');
  if (input.one_time_password && input.password)
    throw validationError('one_time_password', 'either a password or a one-time password, not both');
  if (input.invite && (input.password || input.one_time_password))
    throw validationError('invite', 'either an invitation or a password, not both');
  const email = input.email.toLowerCase();
  if (agents.some((a) => a.email.toLowerCase() === email && a.id !== input.id))
    throw validationError('email', 'another agent has this email');
  const oneTime = input.one_time_password ? oneTimePassword() : undefined;
  const password = oneTime ?? input.password;
  const agent: StoredAgent = {
    id: existing?.id ?? newId('agt'),
    name: input.name,
    email: input.email,
    role: input.role,
    active: input.active,
    password_hash: password ? await hashPassword(password) : (existing?.password_hash ?? null),
    two_factor_secret:
      input.two_factor_secret === undefined ? (existing?.two_factor_secret ?? null) : input.two_factor_secret,
    // The admin can only empty the list (AgentInputSchema). A password set by an admin (a reset) ends
    // the agent's passkeys too: one added by whoever had the account must not outlast the reset (issue 28).
    passkeys: input.passkeys || password ? [] : (existing?.passkeys ?? []),
    // A password an admin sets is the agent's from then on; a one-time one is for one sign-in.
    must_change_password: oneTime ? true : input.password ? false : (existing?.must_change_password ?? false),
    // An admin resetting two-factor (two_factor_secret null) takes the recovery codes with it.
    two_factor_pending: existing?.two_factor_pending ?? null,
    recovery_codes: input.two_factor_secret === undefined ? (existing?.recovery_codes ?? []) : [],
    totp_last_step: existing?.totp_last_step ?? 0,
    signature: existing?.signature ?? '',
    locale: existing?.locale ?? null,
    available: existing?.available ?? true,
    density: existing?.density ?? 'comfortable',
    saved_views: existing?.saved_views ?? [],
    // A new password from the admin makes a pending link moot; an invitation's own is set by the caller.
    account_link: password ? null : (existing?.account_link ?? null),
    created_at: existing?.created_at ?? at.toISOString(),
  };
  await store.update((d) => {
    const next = existing ? d.agents.map((a) => (a.id === agent.id ? agent : a)) : [...d.agents, agent];
    // Checked on the data being written, so two admins demoting each other at once cannot both pass.
    keepAnAdmin(d.agents, next);
    d.agents = next;
  });
  return { agent, created: !existing, ...(oneTime ? { password: oneTime } : {}) };
}

/** Removes an agent (404 when unknown; 409 for the last active admin); their tickets are unassigned by the caller. */
export async function removeAgent(store: ConfigStore, id: string) {
  if (!store.get().agents.some((a) => a.id === id)) throw notFound('agent');
  await store.update((d) => {
    const next = d.agents.filter((a) => a.id !== id);
    keepAnAdmin(d.agents, next);
    d.agents = next;
  });
}

/**
 * A password for one sign-in, as the first start and `ticketing agents reset-password` hand out: 20
 * letters and digits (119 bits) in groups of five, easy to copy. The agent must choose their own next.
 */
const oneTimePassword = () => randomToken(20).match(/.{5}/g)!.join('-');

/** The admin agent of a fresh installation, with a one-time password; undefined when agents exist already. */
export async function createFirstAdmin(store: ConfigStore, email: string, at: Date) {
  if (store.get().agents.length) return undefined;
  const password = oneTimePassword();
  const agent: StoredAgent = {
    id: newId('agt'),
    name: 'Admin',
    email,
    role: 'admin',
    active: true,
    password_hash: await hashPassword(password),
    two_factor_secret: null,
    passkeys: [],
    must_change_password: true,
    two_factor_pending: null,
    recovery_codes: [],
    totp_last_step: 0,
    signature: '',
    locale: null,
    available: true,
    density: 'comfortable',
    saved_views: [],
    account_link: null,
    created_at: at.toISOString(),
  };
  await store.update((d) => void d.agents.push(agent));
  return { agent, password };
}

/**
 * Gives the agent with this email (any case) a new one-time password; their sessions end (the
 * password they began with is gone), and so do their passkeys (`passkeys_removed` of them), which
 * would otherwise sign in past the reset. Undefined when no agent has the email.
 */
export async function resetAgentPassword(store: ConfigStore, email: string) {
  const wanted = email.trim().toLowerCase();
  const found = store.get().agents.find((a) => a.email.toLowerCase() === wanted);
  if (!found) return undefined;
  const password = oneTimePassword();
  const hash = await hashPassword(password);
  await store.update((d) => {
    for (const a of d.agents)
      if (a.id === found.id) {
        a.password_hash = hash;
        a.must_change_password = true;
        a.passkeys = [];
      }
  });
  return { agent: found, password, passkeys_removed: found.passkeys.length };
}
