import { z } from 'zod';
import { emailAddress, isoTime } from './common.js';

export const AGENT_ROLES = ['admin', 'agent'] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

/** How dense the console's inbox is: compact fits at least 12 rows in a 1280×800 window. */
export const DENSITIES = ['comfortable', 'compact'] as const;

/** An inbox's filters kept under a name (the agent's own, in their profile): what /list takes. */
export const SavedViewSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .regex(/^[^\r\n]*$/, 'must be one line'),
    filters: z.strictObject({
      view: z.string().max(32).optional(),
      status: z.string().max(32).optional(),
      category: z.string().max(32).optional(),
      priority: z.string().max(16).optional(),
      tag: z.string().max(100).optional(),
      agent_id: z.string().max(100).optional(),
      q: z.string().max(200).optional(),
      sort: z.string().max(16).optional(),
    }),
  })
  .meta({ id: 'SavedView' });

/** What /admin accepts for an agent. Passwords, two-factor secrets and passkeys go in, never out. */
export const AgentInputSchema = z.object({
  id: z.string().max(100).optional(),
  name: z.string().trim().min(1).max(200),
  email: emailAddress().max(254),
  role: z.enum(AGENT_ROLES).default('agent'),
  active: z.boolean().default(true),
  password: z.string().min(10, 'must be at least 10 characters').max(200).optional(),
  /**
   * true: the server makes a one-time password (answered once as `password`) that the agent must
   * replace at their first sign-in, as the first start and `ticketing agents reset-password` do: an
   * invitation. Not together with `password`.
   */
  one_time_password: z.boolean().optional(),
  /**
   * true: the agent gets a mail with a single-use link (`/console/invite/<token>`, 7 days) to choose
   * their own password; needs working mail. Not together with `password` or `one_time_password`.
   */
  invite: z.boolean().optional(),
  two_factor_secret: z.string().min(16).max(200).nullable().optional(),
  /** Only `[]`: an admin removes an agent's passkeys (a lost device); agents add their own from the console. */
  passkeys: z.array(z.unknown()).max(0, 'can only be emptied: agents add their own passkeys').optional(),
});

/** A passkey (WebAuthn credential) an agent added: its public key signs them in without a password. */
export const StoredPasskeySchema = z.object({
  /** The credential id, base64url. */
  id: z.string(),
  /** The COSE public key, base64url. */
  public_key: z.string(),
  /** The authenticator's signature counter last seen: a lower one means a cloned authenticator. */
  counter: z.number().int().min(0).default(0),
  name: z.string().default('Passkey'),
  transports: z.array(z.string()).default([]),
  created_at: z.string().default(''),
});
export type StoredPasskey = z.infer<typeof StoredPasskeySchema>;

/** What an invitation or reset link's token is checked against: only its hash is kept. */
const AccountLinkSchema = z.object({
  purpose: z.enum(['invite', 'reset']),
  hash: z.string(),
  /** Milliseconds since the epoch. */
  expires_at: z.number(),
});
export type AccountLink = z.infer<typeof AccountLinkSchema>;

export const StoredAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(AGENT_ROLES).default('agent'),
  active: z.boolean().default(true),
  password_hash: z.string().nullable().default(null),
  two_factor_secret: z.string().nullable().default(null),
  passkeys: z.array(StoredPasskeySchema).default([]),
  /** Set with a one-time password (the first start, the reset command): the agent must choose their own. */
  must_change_password: z.boolean().default(false),
  /** A TOTP secret being enrolled, until the agent confirms it with a code (then two_factor_secret). */
  two_factor_pending: z.string().nullable().default(null),
  /** The SHA-256 of each unused recovery code. */
  recovery_codes: z.array(z.string()).default([]),
  /** The last TOTP time step used: a code is good once (no replay within its 30 s). */
  totp_last_step: z.number().int().default(0),
  /** Markdown added under the agent's replies from the console (their own profile). */
  signature: z.string().default(''),
  /** The console's language the agent chose; null: the browser's. */
  locale: z.string().nullable().default(null),
  /** Takes new tickets when assignment is round robin (their own profile). */
  available: z.boolean().default(true),
  /** The inbox's density and the agent's saved views (their own profile). */
  density: z.enum(DENSITIES).default('comfortable'),
  saved_views: z.array(SavedViewSchema).default([]),
  /** A pending invitation or password reset: the SHA-256 of the mailed link's token, single use. */
  account_link: AccountLinkSchema.nullable().default(null),
  created_at: z.string(),
});
export type StoredAgent = z.infer<typeof StoredAgentSchema>;

/** An agent as /admin answers it: no password hash, no two-factor secret, no passkey. */
export const AgentViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.enum(AGENT_ROLES),
    active: z.boolean(),
    two_factor_enabled: z.boolean(),
    must_change_password: z
      .boolean()
      .describe('signed in with a one-time password (or not yet): must choose their own at the next sign-in'),
    passkey_count: z.number().int().min(0),
    invited: z.boolean().describe('an invitation mail was sent and its link not used yet'),
    available: z.boolean().describe('takes new tickets when assignment is round robin (set in their profile)'),
    created_at: isoTime,
  })
  .meta({ id: 'Agent' });
export type AgentView = z.infer<typeof AgentViewSchema>;

/** `/admin r=assignment`: who gets new tickets. Off by default; round robin among `agents` who are available. */
export const AssignmentSchema = z
  .object({
    mode: z.enum(['off', 'round_robin']).default('off'),
    agents: z
      .array(z.string().min(1).max(100))
      .max(200)
      .default([])
      .describe('agent ids, in turn order; inactive or unavailable ones are skipped'),
  })
  .meta({ id: 'Assignment' });
