import type { Logger } from 'pino';
import type { ConfigData } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { SessionStore } from '../store/session-store.js';
import { passwordFingerprint } from './session-cookie.js';

/**
 * Ends an agent's sessions when they are deactivated or deleted, and the sessions begun with their
 * old password when it changes (in /admin or by the CLI). Each request checks the same
 * (session-cookie.ts), so nothing slips through meanwhile; removing the sessions makes sure that
 * reactivating the agent does not bring them back.
 */
export function endSessionsOnAgentChange(configStore: ConfigStore, sessions: SessionStore, logger: Logger) {
  let before = configStore.get().agents;
  configStore.onChange((data: ConfigData) => {
    const previous = new Map(before.map((a) => [a.id, a]));
    before = data.agents;
    const now = new Map(data.agents.map((a) => [a.id, a]));
    for (const [id, old] of previous) {
      const agent = now.get(id);
      let ending: Promise<void> | undefined;
      if (!agent || !agent.active) ending = sessions.removeAgent(id);
      else if (agent.password_hash !== old.password_hash) ending = sessions.removeAgent(id, passwordFingerprint(agent));
      ending?.catch((err: unknown) => logger.error({ err, agent: id }, 'could not end an agent’s sessions'));
    }
  });
}
