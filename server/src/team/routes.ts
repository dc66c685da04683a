import { routeFor } from '../http/route.js';
import { TeamSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';

/** What /team needs from the app. */
export interface TeamDeps {
  configStore: ConfigStore;
}

const route = routeFor<TeamDeps>();

const team = route({
  method: 'get',
  path: '/team',
  access: 'staff',
  summary: 'What every agent may read: colleagues by name, macros, tags with colours, statuses, categories',
  description:
    'For any agent, whatever their role, and for secret keys: the console names colleagues, offers ' +
    'assignees, macros and tag suggestions from it. Agents are `id`, `name`, `role` and `active` only: ' +
    'no email, no password, two-factor secret, passkey or recovery code. The full records stay in ' +
    '`/admin` (admins only).',
  responses: { 200: { description: 'The team and the shared catalogue', schema: TeamSchema } },
  async handler(_req, deps) {
    const { agents, macros, tags, statuses, categories, workflow } = deps.configStore.get();
    return {
      body: {
        agents: agents.map(({ id, name, role, active }) => ({ id, name, role, active })),
        macros,
        tags,
        statuses,
        categories,
        reply_status: workflow.reply_status,
      },
    };
  },
});

export const teamRoutes = [team];
