import { auditEntry, type AuditLog } from '../audit/audit.js';
import { SYSTEM } from '../model/index.js';
import { resetAgentPassword } from '../settings/agents.js';
import type { ConfigStore } from '../store/config-store.js';
import type { SessionStore } from '../store/session-store.js';

export class AgentNotFoundError extends Error {}

/**
 * `ticketing agents reset-password <email>`, on whichever stores the CLI reached (the running server's,
 * the files, the database): a new one-time password, every session and passkey of the agent ended, the audit log
 * told (as the system, via the CLI). The password is answered once and stored only as its hash.
 */
export async function resetPasswordCommand(
  stores: { configStore: ConfigStore; sessions: SessionStore; audit: AuditLog },
  email: string,
  now = new Date(),
): Promise<{ email: string; password: string; passkeys_removed: number }> {
  const reset = await resetAgentPassword(stores.configStore, email);
  if (!reset) throw new AgentNotFoundError(`No agent has the email ${email}.`);
  await stores.sessions.removeAgent(reset.agent.id);
  await stores.audit.append(
    auditEntry(now, SYSTEM, 'agent.password_reset', reset.agent.id, {
      via: 'cli',
      passkeys_removed: reset.passkeys_removed,
    }),
  );
  return { email: reset.agent.email, password: reset.password, passkeys_removed: reset.passkeys_removed };
}
