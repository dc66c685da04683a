import { z } from 'zod';
import { AGENT_ROLES, DENSITIES, SavedViewSchema } from './agents.js';

/** POST /v1/session: an agent's email and password (and a two-factor code once that is on). */
export const SignInSchema = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(200),
  code: z.string().trim().min(1).max(64).optional(),
});

/** POST /v1/session/password. */
export const PasswordChangeSchema = z.object({
  current_password: z.string().min(1).max(200),
  new_password: z.string().min(10, 'must be at least 10 characters').max(200),
});

/** POST /v1/session/verify: the password, or (with two-factor on) a TOTP or recovery code. */
export const VerifySchema = z.object({
  password: z.string().min(1).max(200).optional(),
  code: z.string().trim().min(1).max(64).optional(),
});

/** The languages of the console. */
export const CONSOLE_LOCALES = ['en', 'de'] as const;

/** PATCH /v1/session/profile: what an agent sets about themselves; omitted fields stay as they are. */
export const ProfileInputSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\r\n]*$/, 'must be one line')
    .optional(),
  signature: z.string().max(2000).optional(),
  locale: z.enum(CONSOLE_LOCALES).nullable().optional(),
  available: z.boolean().optional(),
  density: z.enum(DENSITIES).optional(),
  saved_views: z
    .array(SavedViewSchema)
    .max(30)
    .refine((v) => new Set(v.map((x) => x.name.toLowerCase())).size === v.length, 'names must differ')
    .optional()
    .describe('the whole list, replacing the one kept (at most 30, names unique in any case)'),
});

/** POST /v1/session/forgot. */
export const ForgotInputSchema = z.object({ email: z.string().trim().min(1).max(254) });

/** POST /v1/session/invite and /v1/session/reset: the mailed link's token and the new password. */
export const AccountLinkInputSchema = z.object({
  token: z.string().min(1).max(200),
  password: z.string().min(10, 'must be at least 10 characters').max(200),
  /** With two-factor on: a current TOTP or a recovery code, as for signing in. */
  code: z.string().trim().min(1).max(64).optional(),
});

/** The signed-in agent, as the console sees them: never a hash, a secret or a passkey. */
export const SessionAgentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.enum(AGENT_ROLES),
    two_factor_enabled: z.boolean(),
    passkey_count: z.number().int().min(0),
    /** Signed in with a one-time password: every call but these session ones answers 403 password_change_required. */
    must_change_password: z.boolean(),
    signature: z.string().describe('Markdown added under their replies'),
    locale: z.enum(CONSOLE_LOCALES).nullable().describe("the console's language; null: the browser's"),
    available: z.boolean().describe('takes new tickets when assignment is round robin'),
    density: z.enum(DENSITIES).describe('the inbox: comfortable, or compact (at least 12 rows at 1280×800)'),
    saved_views: z.array(SavedViewSchema).describe('filters kept under a name, shown in the inbox’s view list'),
  })
  .meta({ id: 'SessionAgent' });

/** What sign-in, GET /v1/session and a password change answer. */
export const SessionSchema = z
  .object({
    agent: SessionAgentSchema,
    /** Send it as X-CSRF-Token with every unsafe request made with the session cookie. */
    csrf_token: z.string(),
  })
  .meta({ id: 'Session' });
export type SessionView = z.infer<typeof SessionSchema>;

/**
 * A session as stored: found by the SHA-256 of the cookie's value (the value itself is never stored,
 * so a copy of the store signs nobody in). `password` is a fingerprint of the agent's password hash
 * when the session began: a changed password no longer matches it, on every instance at once.
 */
export const StoredSessionSchema = z.object({
  hash: z.string(),
  agent_id: z.string(),
  password: z.string(),
  /** Milliseconds since the epoch, as the clock gave them. */
  created_at: z.number(),
  last_seen_at: z.number(),
});
export type StoredSession = z.infer<typeof StoredSessionSchema>;

/** A passkey as its agent sees it in the console: never its public key. */
export const PasskeySchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string() })
  .meta({ id: 'Passkey' });

/**
 * What @simplewebauthn/browser answers (startRegistration, startAuthentication): checked here only
 * for its outline; @simplewebauthn/server checks the rest and the signatures.
 */
const WebAuthnResponseSchema = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().min(1).max(10_000) }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** POST /v1/session/passkeys: the browser's answer to the registration options, and a name for the passkey. */
export const PasskeyAddSchema = z.object({
  response: WebAuthnResponseSchema,
  name: z.string().trim().min(1).max(100).default('Passkey'),
});

/** POST /v1/session/passkey: the browser's answer to the sign-in options. */
export const PasskeySignInSchema = z.object({ response: WebAuthnResponseSchema });

/** What the two passkey options routes answer, as @simplewebauthn/server makes it (and /browser takes it). */
export const PasskeyOptionsSchema = z
  .looseObject({ challenge: z.string(), timeout: z.number().optional() })
  .meta({ id: 'PasskeyOptions' });
