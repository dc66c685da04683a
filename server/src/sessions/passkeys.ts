import type { AuthenticationResponseJSON, RegistrationResponseJSON, WebAuthnCredential } from '@simplewebauthn/server';
import type { Context } from 'koa';
import { z } from 'zod';
import { auditEntry } from '../audit/audit.js';
import type { Config } from '../config/config.js';
import { ApiError, validationError } from '../http/errors.js';
import { rateLimited } from '../http/rate-limit.js';
import { routeFor } from '../http/route.js';
import {
  DeletedSchema,
  PasskeyAddSchema,
  PasskeyOptionsSchema,
  PasskeySchema,
  PasskeySignInSchema,
  SessionSchema,
  type RequestActor,
  type StoredPasskey,
} from '../model/index.js';
import { agentNow, agentOf, setAgent, type SessionRouteDeps } from './session-agent.js';
import { checkOrigin } from './session-cookie.js';
import { countAttempt, startSession } from './sign-in.js';
import { requireRecentVerification } from './recent-verification.js';

const route = routeFor<SessionRouteDeps>();

// Loaded at the first passkey request, not at start: with its ASN.1 and X.509 parsers the library
// costs every start of the server about half a second (the largest of its imports).
const webauthn = async () => ({
  ...(await import('@simplewebauthn/server')),
  isoBase64URL: (await import('@simplewebauthn/server/helpers')).isoBase64URL,
});

/** A challenge is good this long, once: the browser's prompt gives the agent about as much. */
const CHALLENGE_MS = 5 * 60_000;
/** Passkeys per agent: enough for every device, few enough to list. */
const MAX_PASSKEYS = 20;
/** Sign-in challenges one address may ask for a minute: each is stored until it expires. */
const OPTIONS_PER_MINUTE = 30;

/**
 * The relying party: the host of TICKETING_PUBLIC_URL when set (one id for every instance behind it),
 * else the host the request was made to. The origins accepted are those checkOrigin accepts.
 */
function relyingParty(ctx: Context, config: Pick<Config, 'publicUrl'>) {
  const own = `${ctx.protocol}://${ctx.host}`;
  const origins = new Set([own]);
  if (config.publicUrl) origins.add(new URL(config.publicUrl).origin);
  const rpID = new URL(config.publicUrl ?? own).hostname;
  return { rpID, origins: [...origins] };
}

const view = (p: StoredPasskey) => ({ id: p.id, name: p.name, created_at: p.created_at });

/**
 * The challenge check the library calls with the challenge the browser signed: it is taken from the
 * store (single use, on whichever instance), and must have been handed out for `agentId`.
 */
const takeChallenge = (deps: SessionRouteDeps, agentId: string | null) => async (challenge: string) => {
  const found = await deps.sessions.takeChallenge(challenge, deps.clock().getTime());
  return found !== undefined && found.agentId === agentId;
};

const listPasskeys = route({
  method: 'get',
  path: '/session/passkeys',
  access: 'staff',
  summary: 'The signed-in agent’s passkeys',
  responses: {
    200: { description: 'The passkeys, oldest first', schema: z.object({ data: z.array(PasskeySchema) }) },
  },
  errors: { 403: ['session_required'] },
  async handler({ actor }, deps) {
    const agent = agentNow(deps, agentOf(actor).agent.id);
    return { body: { data: agent.passkeys.map(view) } };
  },
});

const registrationOptions = route({
  method: 'post',
  path: '/session/passkeys/options',
  access: 'staff',
  summary: 'Start adding a passkey: the options for the browser’s navigator.credentials.create',
  description:
    'A discoverable credential (resident key and user verification required), so that it later signs ' +
    'in without an email. The challenge is good once, for 5 minutes, for this agent. Needs a recent check of ' +
    'the password or a second factor (POST /v1/session/verify): a stolen session cannot add a passkey of its own.',
  responses: { 200: { description: 'PublicKeyCredentialCreationOptionsJSON', schema: PasskeyOptionsSchema } },
  errors: { 403: ['session_required', 'verification_required'], 409: ['too_many_passkeys'] },
  async handler({ actor, ctx }, deps) {
    const agent = agentNow(deps, agentOf(actor).agent.id);
    requireRecentVerification(actor, deps.clock().getTime());
    if (agent.passkeys.length >= MAX_PASSKEYS)
      throw new ApiError(409, 'too_many_passkeys', `An agent has at most ${MAX_PASSKEYS} passkeys: remove one first.`);
    const options = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: 'Ticketing',
      rpID: relyingParty(ctx, deps.config).rpID,
      userName: agent.email,
      userDisplayName: agent.name,
      // The user handle the authenticator keeps: the agent's id, not their email (which may change).
      userID: new TextEncoder().encode(agent.id),
      attestationType: 'none',
      excludeCredentials: agent.passkeys.map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await deps.sessions.addChallenge(options.challenge, agent.id, deps.clock().getTime() + CHALLENGE_MS);
    return { body: { ...options } };
  },
});

const addPasskey = route({
  method: 'post',
  path: '/session/passkeys',
  access: 'staff',
  summary: 'Add a passkey: the browser’s answer to the options',
  description:
    'Needs a recent check of the password or a second factor, as the options do. The authenticator must have ' +
    'verified the user (PIN, fingerprint). A passkey id is one agent’s only: one that any agent has already ' +
    'is 409 passkey_in_use.',
  body: { schema: PasskeyAddSchema, encodings: ['json'] },
  responses: { 200: { description: 'The passkey is added', schema: z.object({ passkey: PasskeySchema }) } },
  errors: { 403: ['session_required', 'verification_required'], 409: ['too_many_passkeys', 'passkey_in_use'] },
  async handler({ actor, body, ctx }, deps) {
    const agent = agentNow(deps, agentOf(actor).agent.id);
    requireRecentVerification(actor, deps.clock().getTime());
    const rp = relyingParty(ctx, deps.config);
    const lib = await webauthn();
    let verified;
    try {
      verified = await lib.verifyRegistrationResponse({
        response: body.response as unknown as RegistrationResponseJSON,
        expectedChallenge: takeChallenge(deps, agent.id),
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpID,
        requireUserVerification: true,
      });
    } catch (err) {
      throw validationError('response', `is not a passkey for these options (${(err as Error).message})`);
    }
    if (!verified.verified) throw validationError('response', 'is not a passkey for these options');
    const { credential } = verified.registrationInfo;
    const passkey: StoredPasskey = {
      id: credential.id,
      public_key: lib.isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      name: body.name,
      transports: credential.transports ?? [],
      created_at: deps.clock().toISOString(),
    };
    let refused: ApiError | undefined;
    // Checked inside the write, across every agent: sign-in finds an agent by the passkey's id, so a
    // second agent's copy of an id would shadow (or be shadowed by) the first's.
    await deps.configStore.update((d) => {
      const a = d.agents.find((x) => x.id === agent.id);
      if (!a) return;
      if (a.passkeys.some((p) => p.id === passkey.id))
        refused = validationError('response', 'is a passkey added already');
      else if (d.agents.some((x) => x.passkeys.some((p) => p.id === passkey.id)))
        refused = new ApiError(409, 'passkey_in_use', 'This passkey belongs to another agent: create a new one.');
      else if (a.passkeys.length >= MAX_PASSKEYS)
        refused = new ApiError(409, 'too_many_passkeys', `An agent has at most ${MAX_PASSKEYS} passkeys.`);
      else a.passkeys.push(passkey);
    });
    if (refused) throw refused;
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.passkey_add', agent.id, { passkey: passkey.id }));
    return { body: { passkey: view(passkey) } };
  },
});

const removePasskey = route({
  method: 'delete',
  path: '/session/passkeys',
  access: 'staff',
  summary: 'Remove one of the signed-in agent’s passkeys',
  query: z.object({ id: z.string().min(1, 'is required').max(1400).describe('the passkey') }),
  responses: { 200: { description: 'Removed', schema: DeletedSchema } },
  errors: { 403: ['session_required'], 404: ['passkey_not_found'] },
  async handler({ actor, query }, deps) {
    const agent = agentNow(deps, agentOf(actor).agent.id);
    if (!agent.passkeys.some((p) => p.id === query.id))
      throw new ApiError(404, 'passkey_not_found', 'You have no such passkey.');
    await setAgent(deps, agent.id, (a) => void (a.passkeys = a.passkeys.filter((p) => p.id !== query.id)));
    await deps.audit.append(auditEntry(deps.clock(), actor, 'agent.passkey_remove', agent.id, { passkey: query.id }));
    return { body: { id: query.id, deleted: true as const } };
  },
});

const signInOptions = route({
  method: 'post',
  path: '/session/passkey/options',
  access: 'open',
  summary: 'Start signing in with a passkey: the options for navigator.credentials.get',
  description:
    'No email: the browser offers the passkeys it has for this site. The challenge is good once, for 5 minutes. ' +
    'At most 30 a minute from one address (with TICKETING_RATE_LIMIT on): then 429 rate_limited.',
  responses: { 200: { description: 'PublicKeyCredentialRequestOptionsJSON', schema: PasskeyOptionsSchema } },
  errors: { 403: ['csrf_failed'], 429: ['rate_limited'] },
  async handler({ ctx, ip }, deps) {
    checkOrigin(ctx, deps.config);
    // An open route that stores a challenge per call: without a limit, anyone could fill the store.
    if (deps.config.rateLimit.enabled) {
      const wait = await deps.rateLimiter.hit(`passkey-options|${ip}`, OPTIONS_PER_MINUTE, 60_000);
      if (wait) throw rateLimited(wait);
    }
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: relyingParty(ctx, deps.config).rpID,
      // The passkey stands for password and second factor both: the device must check that it is its
      // owner (PIN, fingerprint), not merely that someone touched it.
      userVerification: 'required',
    });
    await deps.sessions.addChallenge(options.challenge, null, deps.clock().getTime() + CHALLENGE_MS);
    return { body: { ...options } };
  },
});

const signInWithPasskey = route({
  method: 'post',
  path: '/session/passkey',
  access: 'open',
  summary: 'Sign in with a passkey alone',
  description:
    'Answers and sets what POST /v1/session does. The passkey stands for the password and the second factor ' +
    'both (a device the agent holds, unlocked by them: user verification is required), so no TOTP code is ' +
    'asked. An unknown passkey, an answer without user verification, a bad signature, a challenge not handed out (or used already, or expired) or a signature counter that went ' +
    'back all answer 401 invalid_passkey, and count toward the limits of POST /v1/session.',
  body: { schema: PasskeySignInSchema, encodings: ['json'] },
  responses: {
    200: { description: 'Signed in: the session cookie is set', schema: SessionSchema, headers: ['Set-Cookie'] },
  },
  errors: { 401: ['invalid_passkey'], 403: ['csrf_failed'], 429: ['too_many_attempts'] },
  async handler({ body, ctx, ip }, deps) {
    checkOrigin(ctx, deps.config);
    const response = body.response as unknown as AuthenticationResponseJSON;
    const agent = deps.configStore.get().agents.find((a) => a.active && a.passkeys.some((p) => p.id === response.id));
    // Failures count under the agent's email (as a password's would) or, for an unknown passkey, its id.
    const { keys, forgive } = await countAttempt(deps, agent?.email ?? `passkey:${response.id}`, ip);
    const refused = () => new ApiError(401, 'invalid_passkey', 'This passkey does not sign anyone in here.');
    const passkey = agent?.passkeys.find((p) => p.id === response.id);
    if (!agent || !passkey) throw refused();
    const rp = relyingParty(ctx, deps.config);
    const lib = await webauthn();
    let newCounter: number;
    try {
      const verified = await lib.verifyAuthenticationResponse({
        response,
        expectedChallenge: takeChallenge(deps, null),
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpID,
        credential: {
          id: passkey.id,
          publicKey: lib.isoBase64URL.toBuffer(passkey.public_key),
          counter: passkey.counter,
          transports: passkey.transports as NonNullable<WebAuthnCredential['transports']>,
        },
        requireUserVerification: true,
      });
      if (!verified.verified) throw refused();
      newCounter = verified.authenticationInfo.newCounter;
    } catch {
      // The library throws for a wrong challenge, origin, signature or a counter that did not grow.
      throw refused();
    }
    await setAgent(deps, agent.id, (a) => {
      for (const p of a.passkeys) if (p.id === passkey.id) p.counter = Math.max(p.counter, newCounter);
    });
    await forgive();
    await deps.sessions.clearFailures(keys[0]);
    const current = agentNow(deps, agent.id);
    const session = await startSession(ctx, deps, current);
    const actor: RequestActor = {
      kind: 'agent',
      mode: 'live',
      agent: { id: agent.id, name: agent.name, role: agent.role },
      session: '',
      verified_at: deps.clock().getTime(),
    };
    await deps.audit.append(auditEntry(deps.clock(), actor, 'session.sign_in', agent.id, { ip, passkey: passkey.id }));
    return { body: session };
  },
});

/** Adding, listing and removing the agent's passkeys, and signing in with one. */
export const passkeyRoutes = [
  listPasskeys,
  registrationOptions,
  addPasskey,
  removePasskey,
  signInOptions,
  signInWithPasskey,
];
