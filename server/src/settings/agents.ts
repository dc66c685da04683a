import type { z } from 'zod';
import { notFound, validationError } from '../http/errors.js';
import type { AgentInputSchema, StoredAgent } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { newId, randomToken } from '../model/index.js';
import { hashPassword } from './passwords.js';

/**
 * Creates an agent (no `id`) or updates one (`id`; 404 when unknown). Emails are unique regardless of
 * case. A password is stored only as its scrypt hash; an omitted password, two-factor secret or
 * passkey list keeps the stored one.
 */
export async function upsertAgent(
  store: ConfigStore,
  input: z.output<typeof AgentInputSchema>,
  at: Date,
): Promise<{ agent: StoredAgent; created: boolean }> {
  const agents = store.get().agents;
  const existing = input.id === undefined ? undefined : agents.find((a) => a.id === input.id);
  if (input.id !== undefined && !existing) throw notFound('agent');
  const email = input.email.toLowerCase();
  if (agents.some((a) => a.email.toLowerCase() === email && a.id !== input.id))
    throw validationError('email', 'another agent has this email');
  const agent: StoredAgent = {
    id: existing?.id ?? newId('agt'),
    name: input.name,
    email: input.email,
    role: input.role,
    active: input.active,
    password_hash: input.password ? await hashPassword(input.password) : (existing?.password_hash ?? null),
    two_factor_secret:
      input.two_factor_secret === undefined ? (existing?.two_factor_secret ?? null) : input.two_factor_secret,
    // The admin can only empty the list (AgentInputSchema).
    passkeys: input.passkeys ? [] : (existing?.passkeys ?? []),
    // A password an admin sets is the agent's from then on; a one-time one comes from the CLI.
    must_change_password: input.password ? false : (existing?.must_change_password ?? false),
    // An admin resetting two-factor (two_factor_secret null) takes the recovery codes with it.
    two_factor_pending: existing?.two_factor_pending ?? null,
    recovery_codes: input.two_factor_secret === undefined ? (existing?.recovery_codes ?? []) : [],
    totp_last_step: existing?.totp_last_step ?? 0,
    created_at: existing?.created_at ?? at.toISOString(),
  };
  await store.update((d) => {
    d.agents = existing ? d.agents.map((a) => (a.id === agent.id ? agent : a)) : [...d.agents, agent];
  });
  return { agent, created: !existing };
}

/** Removes an agent (404 when unknown); their tickets are unassigned by the caller. */
export async function removeAgent(store: ConfigStore, id: string) {
  if (!store.get().agents.some((a) => a.id === id)) throw notFound('agent');
  await store.update((d) => {
    d.agents = d.agents.filter((a) => a.id !== id);
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
    created_at: at.toISOString(),
  };
  await store.update((d) => void d.agents.push(agent));
  return { agent, password };
}

/**
 * Gives the agent with this email (any case) a new one-time password; their sessions end (the
 * password they began with is gone). Undefined when no agent has the email.
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
      }
  });
  return { agent: found, password };
}
