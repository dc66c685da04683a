import { z } from 'zod';
import { auditEntry } from '../audit/audit.js';
import { ApiError, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { PasswordChangeSchema, SessionSchema, SignInSchema, VerifySchema, type RequestActor } from '../model/index.js';
import { hashPassword, verifyPassword } from '../settings/passwords.js';
import { checkOrigin, clearSessionCookie, currentSession, passwordFingerprint } from './session-cookie.js';
import { checkPassword, countAttempt, sessionView, startSession } from './sign-in.js';
import { agentNow, agentOf, setAgent, type SessionRouteDeps } from './session-agent.js';
import { newEnrolment, newRecoveryCodes, totpStep, useSecondFactor } from './totp.js';
import { RECENT_VERIFICATION_MS, requireRecentVerification } from './recent-verification.js';

const route = routeFor<SessionRouteDeps>();

const sessionAnswer = (description: string) => ({
  description,
  schema: SessionSchema,
  headers: ['Set-Cookie'] as const,
});

const signIn = route({
  method: 'post',
  path: '/session',
  access: 'open',
  summary: 'Sign an agent in to the console',
  description:
    'Answers the agent and the CSRF token, and sets the session cookie (a new session every time). A wrong ' +
    'password and an unknown email answer alike. With two-factor on, `code` (a TOTP code or a recovery ' +
    'code) is needed too: 401 two_factor_required without it, invalid_code when wrong. After 5 failures ' +
    'for one email or 20 from one address in 15 minutes: 429 too_many_attempts with Retry-After, even ' +
    'with the right password.',
  body: { schema: SignInSchema, encodings: ['json', 'form'] },
  responses: { 200: sessionAnswer('Signed in: the session cookie is set') },
  errors: {
    401: ['invalid_credentials', 'two_factor_required', 'invalid_code'],
    403: ['csrf_failed'],
    429: ['too_many_attempts'],
  },
  async handler({ body, ip, ctx }, deps) {
    // A sign-in from another site's page would sign the browser in to the attacker's account.
    checkOrigin(ctx, deps.config);
    const agent = await checkPassword(deps, body, ip);
    const view = await startSession(ctx, deps, agent);
    const actor: RequestActor = {
      kind: 'agent',
      mode: 'live',
      agent: { id: agent.id, name: agent.name, role: agent.role },
      session: '',
      verified_at: deps.clock().getTime(),
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
  errors: { 403: ['session_required'], 429: ['too_many_attempts'] },
  async handler({ actor, body, ctx, ip }, deps) {
    const { agent: who } = agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    // Guessing the current password through a session is limited as sign-ins are.
    const attempt = await countAttempt(deps, found.agent.email, ip);
    if (!(await verifyPassword(body.current_password, found.agent.password_hash)))
      throw validationError('current_password', 'is not your password');
    await attempt.forgive();
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
    await deps.sessions.removeAgent(agent.id, passwordFingerprint(agent));
    const view = await startSession(ctx, deps, agent);
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.password_change', agent.id));
    return { body: view };
  },
});

const verify = route({
  method: 'post',
  path: '/session/verify',
  access: 'staff',
  summary: 'Confirm it is you: check the password or a two-factor code again',
  description:
    `Adding a passkey, turning two-factor off, and changing an agent's email or password in /admin need a ` +
    `session that checked the password or a second factor in the last ${RECENT_VERIFICATION_MS / 60_000} ` +
    'minutes (else 403 verification_required); signing in counts as such a check. Send `password`, or ' +
    '`code` (a TOTP or recovery code) when two-factor is on. Answers a new session (a new cookie and CSRF ' +
    'token); this one ends. A wrong password or code is 400 and counts toward the limits of POST ' +
    '/v1/session (429 too_many_attempts).',
  body: { schema: VerifySchema, encodings: ['json', 'form'] },
  responses: { 200: sessionAnswer('Verified: the new session') },
  errors: { 403: ['session_required'], 429: ['too_many_attempts'] },
  async handler({ actor, body, ctx, ip }, deps) {
    agentOf(actor);
    const found = (await currentSession(ctx, deps))!;
    const agent = found.agent;
    if (body.password === undefined && body.code === undefined)
      throw validationError('password', 'is required (or, with two-factor on, a code as `code`)');
    if (body.password === undefined && !agent.two_factor_secret)
      throw validationError('code', 'two-factor is not on: send your password');
    // Guesses through a session are limited as sign-ins are: counted first, forgiven when right.
    const attempt = await countAttempt(deps, agent.email, ip);
    if (body.password !== undefined) {
      if (!(await verifyPassword(body.password, agent.password_hash)))
        throw validationError('password', 'is not your password');
    } else if (!(await useSecondFactor(deps.configStore, agent, body.code!, attempt.now)))
      throw validationError('code', 'is wrong, or was used already');
    await attempt.forgive();
    // A new session id for the raised trust (startSession ends this one): a cookie copied before this does not share it.
    const view = await startSession(ctx, deps, agentNow(deps, agent.id));
    await deps.audit.append(
      auditEntry(deps.clock(), actor, 'session.verify', agent.id, { by: body.password ? 'password' : 'code' }),
    );
    return { body: view };
  },
});

const CodeSchema = z.object({ code: z.string().trim().min(1).max(64) });

const totpStart = route({
  method: 'post',
  path: '/session/totp',
  access: 'staff',
  summary: 'Start enrolling TOTP two-factor for the signed-in agent',
  description:
    'Answers a new secret (base32), its otpauth:// URL and a QR code of it (SVG). Two-factor is on only once ' +
    'a code from it is confirmed (/session/totp/confirm); starting again replaces an unconfirmed secret.',
  responses: {
    200: {
      description: 'The secret to enter in an authenticator app',
      schema: z
        .object({ secret: z.string(), otpauth_url: z.string(), qr_svg: z.string() })
        .meta({ id: 'TotpEnrolment' }),
    },
  },
  errors: { 403: ['session_required'], 409: ['two_factor_enabled'] },
  async handler({ actor }, deps) {
    const { agent: who } = agentOf(actor);
    const agent = agentNow(deps, who.id);
    if (agent.two_factor_secret)
      throw new ApiError(409, 'two_factor_enabled', 'Two-factor is on already; turn it off first to enrol anew.');
    const enrolment = await newEnrolment(agent.email);
    await setAgent(deps, agent.id, (a) => void (a.two_factor_pending = enrolment.secret));
    return { body: enrolment };
  },
});

const totpConfirm = route({
  method: 'post',
  path: '/session/totp/confirm',
  access: 'staff',
  summary: 'Turn TOTP two-factor on with a code from the enrolled secret',
  description:
    'Answers ten one-time recovery codes, shown this once (stored only hashed): each signs in once in place ' +
    'of a code.',
  body: { schema: CodeSchema, encodings: ['json', 'form'] },
  responses: {
    200: {
      description: 'Two-factor is on',
      schema: z.object({ recovery_codes: z.array(z.string()).length(10) }),
    },
  },
  errors: { 403: ['session_required'], 409: ['no_two_factor_enrolment'] },
  async handler({ actor, body }, deps) {
    const { agent: who } = agentOf(actor);
    const agent = agentNow(deps, who.id);
    const pending = agent.two_factor_pending;
    if (!pending || agent.two_factor_secret)
      throw new ApiError(409, 'no_two_factor_enrolment', 'Start with POST /v1/session/totp.');
    const step = totpStep(pending, body.code, deps.clock().getTime());
    if (step === undefined) throw validationError('code', 'is not the current code of this secret');
    const { codes, hashes } = newRecoveryCodes();
    await setAgent(deps, agent.id, (a) => {
      a.two_factor_secret = pending;
      a.two_factor_pending = null;
      a.recovery_codes = hashes;
      a.totp_last_step = step;
    });
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.two_factor_on', agent.id));
    return { body: { recovery_codes: codes } };
  },
});

const totpOff = route({
  method: 'delete',
  path: '/session/totp',
  access: 'staff',
  summary: 'Turn two-factor off, with a current code or a recovery code',
  description: 'Needs a recent check of the password or a second factor (POST /v1/session/verify).',
  body: { schema: CodeSchema, encodings: ['json', 'form'] },
  responses: { 200: { description: 'Two-factor is off', schema: z.object({ two_factor_enabled: z.literal(false) }) } },
  errors: { 403: ['session_required', 'verification_required'], 409: ['two_factor_not_enabled'] },
  async handler({ actor, body }, deps) {
    const { agent: who } = agentOf(actor);
    requireRecentVerification(actor, deps.clock().getTime());
    const agent = agentNow(deps, who.id);
    if (!agent.two_factor_secret) throw new ApiError(409, 'two_factor_not_enabled', 'Two-factor is not on.');
    if (!(await useSecondFactor(deps.configStore, agent, body.code, deps.clock().getTime())))
      throw validationError('code', 'is wrong, or was used already');
    await setAgent(deps, agent.id, (a) => {
      a.two_factor_secret = null;
      a.recovery_codes = [];
    });
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.two_factor_off', agent.id));
    return { body: { two_factor_enabled: false as const } };
  },
});

/** Signing in, who is signed in, signing out, re-checking, the agent's own password and two-factor. */
export const sessionRoutes = [signIn, show, signOut, changePassword, verify, totpStart, totpConfirm, totpOff];
