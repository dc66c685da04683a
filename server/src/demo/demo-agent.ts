import { AgentInputSchema, randomToken } from '../model/index.js';
import { upsertAgent } from '../settings/agents.js';
import { verifyPassword } from '../settings/passwords.js';
import type { ConfigStore } from '../store/config-store.js';

/** The agent the demo signs in to the console with. */
export const DEMO_AGENT_EMAIL = 'demo@ticketing.localhost';

/**
 * The demo's console agent (an admin): made on the first run with a random password, which is kept
 * beside the demo's keys so every run can print it. An older demo directory without one, or one whose
 * kept password no longer signs in (lost, changed in the console, agent deactivated), gets the agent
 * (again, active) with a new password: what the demo prints always works.
 */
export async function demoAgent(
  store: ConfigStore,
  kept: { email: string; password: string } | undefined,
  at: Date,
): Promise<{ email: string; password: string }> {
  const existing = store.get().agents.find((a) => a.email.toLowerCase() === DEMO_AGENT_EMAIL);
  if (
    existing?.active &&
    kept?.email === DEMO_AGENT_EMAIL &&
    (await verifyPassword(kept.password, existing.password_hash))
  )
    return kept;
  const password = randomToken(20);
  const input = AgentInputSchema.parse({
    id: existing?.id,
    name: 'Demo Agent',
    email: DEMO_AGENT_EMAIL,
    role: 'admin',
    password,
  });
  await upsertAgent(store, input, at);
  return { email: DEMO_AGENT_EMAIL, password };
}
