import { z } from 'zod';

// Every configuration resource is a zod schema with its defaults (API.md, "/admin"). The management
// issue adds the rest; the ticket API reads categories, statuses and agents from here.

export const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a slug: a-z, 0-9, _ and -, up to 32');
const hexColor = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour like #2563eb');

function uniqueBy<T>(key: (item: T) => string, what: string) {
  return (list: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    list.forEach((item, index) => {
      const k = key(item);
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate ${what} "${k}"` });
      seen.add(k);
    });
  };
}

export const FieldSchema = z
  .object({
    id: slug,
    label: z.string().min(1).max(200),
    type: z.enum(['text', 'textarea', 'number', 'email', 'url', 'select', 'checkbox', 'date']),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(200)).max(100).optional(),
    placeholder: z.string().max(200).nullable().optional(),
  })
  .refine((f) => f.type !== 'select' || (f.options?.length ?? 0) > 0, {
    message: 'a select field needs options',
    path: ['options'],
  });

export const CategorySchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  fields: z
    .array(FieldSchema)
    .max(50)
    .default([])
    .superRefine(uniqueBy((f) => f.id, 'field')),
});
export const CategoriesSchema = z
  .array(CategorySchema)
  .max(200)
  .superRefine(uniqueBy((c) => c.id, 'category'));

export const StatusSchema = z.object({
  id: slug,
  name: z.string().min(1).max(100),
  closed: z.boolean().default(false),
  color: hexColor.nullable().default(null),
});
export const StatusesSchema = z
  .array(StatusSchema)
  .max(50)
  .superRefine(uniqueBy((s) => s.id, 'status'))
  .refine((list) => list.some((s) => !s.closed) && list.some((s) => s.closed), {
    message: 'needs at least one open and one closed status',
  });

export const DEFAULT_STATUSES: z.infer<typeof StatusesSchema> = [
  { id: 'open', name: 'Open', closed: false, color: '#2563eb' },
  { id: 'pending', name: 'Pending', closed: false, color: '#d97706' },
  { id: 'answered', name: 'Answered', closed: false, color: '#059669' },
  { id: 'closed', name: 'Closed', closed: true, color: '#6b7280' },
];

/** Agents as stored. The password hash never leaves the server (see admin views). */
export const StoredAgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'agent']).default('agent'),
  active: z.boolean().default(true),
  password_hash: z.string().nullable().default(null),
  two_factor_secret: z.string().nullable().default(null),
  passkeys: z.array(z.unknown()).default([]),
  created_at: z.string(),
});

export const StoredKeySchema = z.object({
  id: z.string(),
  kind: z.enum(['public', 'secret']),
  mode: z.enum(['live', 'test']),
  prefix: z.string(),
  /** Public keys only: the key itself (it is public by design). */
  key: z.string().nullable().default(null),
  /** Secret keys only: hex SHA-256 of the key. */
  hash: z.string().nullable().default(null),
  origins: z.array(z.string()).default([]),
  label: z.string().nullable().default(null),
  created_at: z.string(),
  revoked_at: z.string().nullable().default(null),
});

export const PortalSchema = z.object({
  name: z.string().min(1).max(100).default('Support'),
});

/** config.json: parsed through this on every start, so a missing resource takes its default. */
export const ConfigDataSchema = z.object({
  version: z.literal(1).default(1),
  portal: PortalSchema.default({ name: 'Support' }),
  keys: z.array(StoredKeySchema).default([]),
  categories: CategoriesSchema.default([]),
  statuses: StatusesSchema.default(DEFAULT_STATUSES),
  agents: z.array(StoredAgentSchema).default([]),
});

export type ConfigData = z.infer<typeof ConfigDataSchema>;
export type StoredKey = z.infer<typeof StoredKeySchema>;
export type StoredAgent = z.infer<typeof StoredAgentSchema>;
