import { auditEntry } from '../audit/audit.js';
import { routeFor } from '../http/route.js';
import { ProfileInputSchema, SessionSchema } from '../model/index.js';
import { currentSession } from './session-cookie.js';
import { agentOf, setAgent, type SessionRouteDeps } from './session-agent.js';
import { sessionView } from './sign-in.js';

const route = routeFor<SessionRouteDeps>();

const profile = route({
  method: 'patch',
  path: '/session/profile',
  access: 'staff',
  summary: 'Change the signed-in agent’s own profile: name, signature, language, available',
  description:
    'Only the fields sent change. `signature` (Markdown, up to 2,000 characters) is added under the ' +
    'agent’s replies from the console, after a blank line (not under notes); `locale` is the console’s ' +
    'language (`null`: the browser’s); `available: false` keeps round-robin assignment from giving them ' +
    'new tickets; `density` (comfortable, compact) is the inbox’s; `saved_views` replaces the agent’s named ' +
    'filters whole (`[{ name, filters: { view, status, category, priority, tag, agent_id, q, sort } }]`). ' +
    'Answers the session as GET /v1/session does.',
  body: { schema: ProfileInputSchema, encodings: ['json'] },
  responses: { 200: { description: 'The profile is saved: the session', schema: SessionSchema } },
  errors: { 403: ['session_required'] },
  async handler({ actor, body, ctx }, deps) {
    const { agent: who } = agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    const data = await setAgent(deps, who.id, (a) => {
      if (body.name !== undefined) a.name = body.name;
      if (body.signature !== undefined) a.signature = body.signature;
      if (body.locale !== undefined) a.locale = body.locale;
      if (body.available !== undefined) a.available = body.available;
      if (body.density !== undefined) a.density = body.density;
      if (body.saved_views !== undefined) a.saved_views = body.saved_views;
    });
    const agent = data.agents.find((a) => a.id === who.id) ?? found.agent;
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.profile', agent.id, { fields: Object.keys(body) }));
    return { body: sessionView(agent, found.id) };
  },
});

/** The agent's own profile. */
export const profileRoutes = [profile];
