import { z } from 'zod';

/** Public keys (pk_) go into the widget; secret keys (sk_) are support's and scripts'. */
export const KEY_KINDS = ['public', 'secret'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** Live and test keys see separate ticket stores. */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const StoredKeySchema = z.object({
  id: z.string(),
  kind: z.enum(KEY_KINDS),
  mode: z.enum(KEY_MODES),
  prefix: z.string(),
  /** Public keys only: the key itself (it is public by design). */
  key: z.string().nullable().default(null),
  /** Secret keys only: hex SHA-256 of the key. */
  hash: z.string().nullable().default(null),
  origins: z.array(z.string()).default([]),
  label: z.string().nullable().default(null),
  created_at: z.string(),
  revoked_at: z.string().nullable().default(null),
  /** When a request last authenticated with it, to the hour (keys/last-used.ts). */
  last_used_at: z.string().nullable().default(null),
});
export type StoredKey = z.infer<typeof StoredKeySchema>;

/** An allowed browser origin of a public key: scheme, host and port, nothing else. */
const OriginSchema = z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin looks like https://shop.example');

/** A new key (the CLI's `keys create`, `/admin r=keys`). */
export const KeyInputSchema = z.object({
  kind: z.enum(KEY_KINDS),
  mode: z.enum(KEY_MODES),
  origins: z.array(OriginSchema).max(50).default([]).describe('public keys: the browser origins allowed (empty: any)'),
  label: z.string().trim().max(200).nullable().default(null).describe('what the key is for'),
});

/** `/admin r=keys` with an `id`: a public key's allowed origins, replaced whole, while the server runs. */
export const KeyOriginsInputSchema = z.object({
  id: z.string().min(1).max(100),
  origins: z.array(OriginSchema).max(50),
});

/** A key as `/admin r=keys` reads it: never the key itself, nor its hash; the prefix identifies it. */
export const ApiKeyViewSchema = z
  .object({
    id: z.string(),
    kind: z.enum(KEY_KINDS),
    mode: z.enum(KEY_MODES),
    state: z.enum(['active', 'revoked']),
    prefix: z.string().describe('the first 12 characters: enough to recognise the key, not to use it'),
    origins: z.array(z.string()),
    label: z.string().nullable(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable().describe('the last request made with it, to the hour; null: never'),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ApiKeyViewSchema>;

/** A key as a request's credential resolves it: never the key itself, nor its hash. */
export interface AuthKey {
  id: string;
  kind: KeyKind;
  mode: KeyMode;
  prefix: string;
  /** Public keys: the origins a browser may use it from (empty: any). */
  origins: string[];
  /** As stored (null for TICKETING_KEYS, which are never stored). */
  last_used_at?: string | null;
}

/** /me: what the calling key is, and where the portal lives. */
export const MeSchema = z
  .object({
    key: z
      .object({
        kind: z.enum(KEY_KINDS),
        mode: z.enum(KEY_MODES),
        admin: z.boolean().describe('true for a live secret key: it may use /admin'),
        prefix: z.string().describe('the first 12 characters: enough to recognise the key, not to use it'),
      })
      .nullable()
      .describe('the calling key; null for an agent signed in to the console'),
    portal: z.object({ name: z.string(), public_url: z.string() }),
    version: z.string(),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof MeSchema>;
