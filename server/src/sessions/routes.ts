import { z } from 'zod';
import { auditEntry, type AuditLog } from '../audit/audit.js';
import { ApiError, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { sha256 } from '../keys/keys.js';
import { PasswordChangeSchema, SessionSchema, SignInSchema, type RequestActor } from '../model/index.js';
import { hashPassword, verifyPassword } from '../settings/passwords.js';
import {
  checkOrigin,
  clearSessionCookie,
  cookieName,
  currentSession,
  passwordFingerprint,
  type SessionDeps,
} from './session-cookie.js';
import { checkPassword, sessionView, startSession } from './sign-in.js';

/** What the session routes need from the app. */
export interface SessionRouteDeps extends SessionDeps {
  audit: AuditLog;
}

const route = routeFor<SessionRouteDeps>();

const sessionAnswer = (description: string) => ({
  description,
  schema: SessionSchema,
  headers: ['Set-Cookie'] as const,
});

/** The routes below need a session, not a key: a key holder has no session to show or end. */
function agentOf(actor: RequestActor) {
  if (actor.kind !== 'agent')
    throw new ApiError(403, 'session_required', 'This is about an agent’s session: sign in with POST /v1/session.');
  return actor;
}

const signIn = route({
  method: 'post',
  path: '/session',
  access: 'open',
  summary: 'Sign an agent in to the console',
  description:
    'Answers the agent and the CSRF token, and sets the session cookie (a new session every time). A wrong ' +
    'password and an unknown email answer alike. After 5 failures for one email or 20 from one address in ' +
    '15 minutes: 429 too_many_attempts with Retry-After, even with the right password.',
  body: { schema: SignInSchema, encodings: ['json', 'form'] },
  responses: { 200: sessionAnswer('Signed in: the session cookie is set') },
  errors: { 401: ['invalid_credentials'], 403: ['csrf_failed'], 429: ['too_many_attempts'] },
  async handler({ body, ip, ctx }, deps) {
    // A sign-in from another site's page would sign the browser in to the attacker's account.
    checkOrigin(ctx, deps.config);
    const agent = await checkPassword(deps, body, ip);
    // The session the browser brought, if any, ends: a sign-in always leaves one new session behind.
    const old = ctx.cookies.get(cookieName(deps.config));
    if (old) await deps.sessions.remove(sha256(old));
    const view = await startSession(ctx, deps, agent);
    const actor: RequestActor = {
      kind: 'agent',
      mode: 'live',
      agent: { id: agent.id, name: agent.name, role: agent.role },
      session: '',
    };
    await deps.audit.append(auditEntry(deps.clock(), actor, 'session.sign_in', agent.id, { ip }));
    return { body: view };
  },
});

const show = route({
  method: 'get',
  path: '/session',
  access: 'staff',
  summary: 'The signed-in agent, and the session’s CSRF token',
  responses: { 200: { description: 'The session', schema: SessionSchema } },
  errors: { 403: ['session_required'] },
  async handler({ actor, ctx }, deps) {
    agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    return { body: sessionView(found.agent, found.id) };
  },
});

const signOut = route({
  method: 'delete',
  path: '/session',
  access: 'staff',
  summary: 'Sign out: the session ends on the server, the cookie is cleared',
  responses: {
    200: {
      description: 'Signed out',
      schema: z.object({ signed_out: z.literal(true) }),
      headers: ['Set-Cookie'] as const,
    },
  },
  errors: { 403: ['session_required'] },
  async handler({ actor, ctx }, deps) {
    agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    await deps.sessions.remove(found.session.hash);
    clearSessionCookie(ctx, deps.config);
    return { body: { signed_out: true as const } };
  },
});

const changePassword = route({
  method: 'post',
  path: '/session/password',
  access: 'staff',
  summary: 'Change the signed-in agent’s password',
  description:
    'Every other session of the agent ends; this one goes on under a new id (a new cookie and CSRF token). ' +
    'An agent signed in with a one-time password must do this before anything else.',
  body: { schema: PasswordChangeSchema, encodings: ['json', 'form'] },
  responses: { 200: sessionAnswer('The password is changed: the new session') },
  errors: { 403: ['session_required'] },
  async handler({ actor, body, ctx }, deps) {
    const { agent: who } = agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    if (!(await verifyPassword(body.current_password, found.agent.password_hash)))
      throw validationError('current_password', 'is not your password');
    if (body.new_password === body.current_password)
      throw validationError('new_password', 'must differ from the current one');
    const hash = await hashPassword(body.new_password);
    const next = await deps.configStore.update((d) => {
      for (const a of d.agents)
        if (a.id === who.id) {
          a.password_hash = hash;
          a.must_change_password = false;
        }
    });
    const agent = next.agents.find((a) => a.id === who.id);
    if (!agent) throw new ApiError(401, 'not_signed_in', 'Your session has ended: sign in again.');
    await deps.sessions.remove(found.session.hash);
    await deps.sessions.removeAgent(agent.id, passwordFingerprint(agent));
    const view = await startSession(ctx, deps, agent);
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.password_change', agent.id));
    return { body: view };
  },
});

/** Signing in, who is signed in, signing out, the agent's own password. */
export const sessionRoutes = [signIn, show, signOut, changePassword];
