import { ApiError } from '../http/errors.js';
import { sha256 } from '../keys/keys.js';
import { randomToken, type AccountLink, type StoredAgent } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';

/** How long a mailed link holds: an invitation a week, a password reset an hour. */
const LINK_LIFETIME_MS: Record<AccountLink['purpose'], number> = {
  invite: 7 * 24 * 3_600_000,
  reset: 3_600_000,
};

/** A new link's token (256 bits; mailed, never stored) and what the agent keeps of it (its hash). */
export function newAccountLink(purpose: AccountLink['purpose'], now: number) {
  const token = randomToken(43);
  return { token, link: { purpose, hash: sha256(token), expires_at: now + LINK_LIFETIME_MS[purpose] } };
}

/** The console page a link opens, on the server's own public URL (never an address a request named). */
export const accountLinkUrl = (publicUrl: string, purpose: AccountLink['purpose'], token: string) =>
  `${publicUrl}/console/${purpose}/${token}`;

const linkInvalid = () =>
  new ApiError(403, 'link_invalid', 'This link is expired, was used already, or was replaced by a newer one.');

const holds = (a: StoredAgent, purpose: AccountLink['purpose'], hash: string, now: number) =>
  a.active && a.account_link?.purpose === purpose && a.account_link.hash === hash && a.account_link.expires_at > now;

/** The active agent a link's token is for, while it holds; else 403 link_invalid. Takes nothing. */
export function agentOfLink(store: ConfigStore, purpose: AccountLink['purpose'], token: string, now: number) {
  const hash = sha256(token);
  const agent = store.get().agents.find((a) => holds(a, purpose, hash, now));
  if (!agent) throw linkInvalid();
  return agent;
}

/**
 * Uses a link once: checked again on the data being written (so two uses at once, on one instance or
 * two, cannot both pass), then the new password is set and the link is gone. A reset also ends the
 * agent's passkeys, as every other reset does (settings/agents.ts): one added by whoever had the account
 * must not outlast it.
 */
export async function useAccountLink(
  store: ConfigStore,
  purpose: AccountLink['purpose'],
  token: string,
  passwordHash: string,
  now: number,
): Promise<StoredAgent> {
  const hash = sha256(token);
  let used: StoredAgent | undefined;
  await store.update((d) => {
    const agent = d.agents.find((a) => holds(a, purpose, hash, now));
    if (!agent) throw linkInvalid();
    agent.password_hash = passwordHash;
    agent.must_change_password = false;
    agent.account_link = null;
    if (purpose === 'reset') agent.passkeys = [];
    used = agent;
  });
  return store.get().agents.find((a) => a.id === used!.id) ?? used!;
}
