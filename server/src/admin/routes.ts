import { z } from 'zod';
import { auditEntry } from '../audit/audit.js';
import { formInt, optional } from '../http/coerce.js';
import { ApiError, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { validate } from '../http/validate.js';
import {
  AgentInputSchema,
  AgentViewSchema,
  ApiKeyViewSchema,
  KeyInputSchema,
  KeyOriginsInputSchema,
  ArticleInputSchema,
  ArticleSchema,
  AuditEntrySchema,
  DeletedSchema,
  LimitsViewSchema,
  OutboxEntrySchema,
  PRIORITIES,
  PrioritySchema,
  WebhookLogEntrySchema,
  WebhookSecretInputSchema,
  WebhookSecretSchema,
  WebhookSecretViewSchema,
  type KeyMode,
  type LimitsView,
  type RequestActor,
  type WebhookLogEntry,
} from '../model/index.js';
import { addKey, apiKeyView, revokeKey, setKeyOrigins, type KeyChanger } from '../keys/commands.js';
import { requireRecentVerification } from '../sessions/recent-verification.js';
import { mailConfigured } from '../mail/mailer.js';
import { mailAccountLink } from '../onboarding/routes.js';
import type { Outbox } from '../outbox/outbox.js';
import { removeAgent, upsertAgent } from '../settings/agents.js';
import { removeArticle, upsertArticle } from '../settings/articles.js';
import { CONFIG_RESOURCE_NAMES, CONFIG_RESOURCES, isConfigResource } from '../settings/resources.js';
import { agentView, webhookSecretsView } from '../settings/views.js';
import { setWebhookSecret } from '../settings/webhook-secrets.js';
import type { Config } from '../config/config.js';
import type { ConfigStore } from '../store/config-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { AuditStore, LogStore } from '../store/log-store.js';
import type { TicketStore } from '../store/ticket-store.js';

/** What /admin needs from the app. */
export interface AdminDeps {
  config: Pick<Config, 'webhooksAllowLocal' | 'rateLimit' | 'quotas' | 'customerMailPerHour'>;
  configStore: ConfigStore;
  keys: KeyStore;
  tickets: Record<KeyMode, TicketStore>;
  /** Searchable: r=audit's filters and cursor. */
  audit: AuditStore;
  webhookLog: LogStore<WebhookLogEntry>;
  /** r=outbox reads it; an invitation (r=agents with invite) is mailed through it. */
  outbox: Pick<Outbox, 'list' | 'enqueue'>;
  publicUrl: () => string;
  clock: () => Date;
}

const route = routeFor<AdminDeps>();

/** Agents and articles: created or updated one at a time, deleted by id. */
const ENTRY_RESOURCES = ['agents', 'kb'] as const;
/**
 * The API keys of the running server (the same store the CLI's `ticketing keys` acts on): created one
 * at a time (the key answered once), a public key's origins set, revoked by id. Not part of r=all:
 * keys are access, not configuration.
 */
const KEYS = 'keys' as const;
/** Read-only records, newest first, with `limit`: the audit log, webhook attempts, the outbox. */
const LOG_RESOURCES = ['audit', 'webhook_log', 'outbox'] as const;
/** Read-only, set at start by environment variables: the rate limits and quotas in force. */
const LIMITS = 'limits' as const;
/**
 * One signing secret per webhook URL, kept in step with the URLs by every write: reads list the URLs,
 * a POST sets or rotates one URL's secret.
 */
const WEBHOOK_SECRETS = 'webhook_secrets' as const;
/** Everything `r=all` answers: every resource but the logs. */
const ALL = [...CONFIG_RESOURCE_NAMES, ...ENTRY_RESOURCES, WEBHOOK_SECRETS, 'priorities'] as const;
const RESOURCES = ['all', ...ALL, KEYS, ...LOG_RESOURCES, LIMITS] as const;

const isOneOf = <T extends string>(list: readonly T[], r: string): r is T => (list as readonly string[]).includes(r);

/** What each readable resource answers, for the document and the checks of every answer. */
const VIEWS: Record<(typeof ALL)[number] | typeof KEYS | (typeof LOG_RESOURCES)[number] | typeof LIMITS, z.ZodType> = {
  ...(Object.fromEntries(CONFIG_RESOURCE_NAMES.map((r) => [r, CONFIG_RESOURCES[r].view])) as Record<
    (typeof CONFIG_RESOURCE_NAMES)[number],
    z.ZodType
  >),
  agents: z.array(AgentViewSchema),
  kb: z.array(ArticleSchema),
  webhook_secrets: z.array(WebhookSecretViewSchema),
  keys: z.array(ApiKeyViewSchema),
  priorities: z.array(PrioritySchema),
  audit: z.array(AuditEntrySchema),
  webhook_log: z.array(WebhookLogEntrySchema),
  outbox: z.array(OutboxEntrySchema),
  limits: LimitsViewSchema,
};

const keyed = (names: readonly (keyof typeof VIEWS)[]) => names.map((r) => z.object({ [r]: VIEWS[r] }));
/** `{ "<r>": value }`, or every resource at once for r=all. */
const ReadAnswer: z.ZodType<Record<string, unknown>> = z.xor([
  z.object(Object.fromEntries(ALL.map((r) => [r, VIEWS[r]]))).describe('r=all'),
  ...keyed([...ALL, KEYS, ...LOG_RESOURCES, LIMITS]),
]);
const AgentAnswer = z.object({
  agent: AgentViewSchema,
  password: z
    .string()
    .optional()
    .describe('with one_time_password: the password for one sign-in, shown only here (stored as a hash)'),
});
const KeyAnswer = z.object({ api_key: ApiKeyViewSchema });
const NewKeyAnswer = KeyAnswer.extend({
  key: z.string().describe('the whole key: shown only in this answer (a secret key is stored as its hash)'),
});
const ArticleAnswer = z.object({ article: ArticleSchema });
/** The secrets a write generated: the one answer that ever shows them. */
const created = z
  .array(WebhookSecretSchema)
  .optional()
  .describe('webhook secrets this write generated for URLs new to the configuration: shown only here');
/** A written resource as a read answers it, or the agent or article written. */
const WriteAnswer: z.ZodType<Record<string, unknown>> = z.xor([
  ...[...CONFIG_RESOURCE_NAMES, WEBHOOK_SECRETS].map((r) =>
    z.object({ [r]: VIEWS[r], webhook_secrets_created: created }),
  ),
  AgentAnswer,
  ArticleAnswer,
  KeyAnswer.describe('r=keys with id: the key with its new origins'),
]);

const resourceParam = z
  .string('names the resource, e.g. r=all or r=design')
  .min(1, 'names the resource, e.g. r=all or r=design')
  .meta({ enum: [...RESOURCES], description: 'the resource; another name answers 404 resource_not_found' });

function known(r: string): (typeof RESOURCES)[number] {
  if (!isOneOf(RESOURCES, r))
    throw new ApiError(404, 'resource_not_found', `There is no resource "${r.slice(0, 40)}".`);
  return r;
}

function limitsView(config: AdminDeps['config']): LimitsView {
  const { rateLimit: rl, quotas: q } = config;
  return {
    rate_limit: {
      enabled: rl.enabled,
      pk_per_minute: rl.pkPerMinute,
      pk_creates_per_10_minutes: rl.pkCreatesPer10Minutes,
      sk_per_minute: rl.skPerMinute,
      key_failures_per_minute: rl.keyFailuresPerMinute,
    },
    quotas: {
      ticket_files: q.ticketFiles,
      ticket_bytes: q.ticketBytes,
      ticket_messages: q.ticketMessages,
      ticket_text_chars: q.ticketTextChars,
      upload_bytes_per_hour: q.uploadBytesPerHour,
    },
    customer_mail_per_hour: config.customerMailPerHour,
  };
}

/** Stored times are UTC ISO strings: a filter time with an offset becomes one, so they compare as text. */
const iso = (t: string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

const readOnly = (r: string) =>
  new ApiError(405, 'method_not_allowed', `${r} is read-only.`, { headers: { Allow: 'GET' } });

const audit = (deps: AdminDeps, actor: RequestActor, action: string, target: string | null, details = {}) =>
  deps.audit.append(auditEntry(deps.clock(), actor, action, target, details));

const read = route({
  method: 'get',
  path: '/admin',
  access: 'admin',
  summary: 'Read a configuration resource, everything at once (r=all), or a log',
  query: z.object({
    r: resourceParam,
    limit: optional(formInt({ min: 1, digits: '^0*[1-9][0-9]{0,14}$' }))
      .transform((n) => Math.min(n ?? 100, 500))
      .describe('logs (audit, webhook_log, outbox): how many entries, newest first (default 100, at most 500)'),
    actor: optional(z.string().min(1).max(200)).describe(
      'r=audit: an agent id or name (any case), a key prefix, or a kind (system, secret, public, agent)',
    ),
    action: optional(z.string().min(1).max(100)).describe(
      'r=audit: the action or its start (ticket. finds all ticket actions)',
    ),
    target: optional(z.string().min(1).max(200)).describe('r=audit: the target, exactly'),
    from: optional(z.iso.datetime({ offset: true })).describe('r=audit: entries at or after this time'),
    to: optional(z.iso.datetime({ offset: true })).describe('r=audit: entries before this time'),
    before: optional(z.string().min(1).max(100)).describe(
      'r=audit: the id of the last entry of the page before; answers the older entries after it',
    ),
  }),
  responses: { 200: { description: '{ "<r>": value }; r=all: every resource but the logs', schema: ReadAnswer } },
  errors: { 404: ['resource_not_found'] },
  async handler({ query }, deps) {
    const r = known(query.r);
    const data = deps.configStore.get();
    const readOne = (name: (typeof ALL)[number]) => {
      if (isConfigResource(name)) return CONFIG_RESOURCES[name].read(data);
      if (name === 'agents') return data.agents.map(agentView);
      if (name === 'kb') return data.kb;
      if (name === WEBHOOK_SECRETS) return webhookSecretsView(data);
      return [...PRIORITIES];
    };
    if (r === 'all') return { body: Object.fromEntries(ALL.map((name) => [name, readOne(name)])) };
    if (r === KEYS) return { body: { keys: (await deps.keys.list()).map(apiKeyView) } };
    if (r === 'audit') {
      const { actor, action, target, from, to, before } = query;
      const filter = { actor, action, target, before, from: iso(from), to: iso(to) };
      const plain = Object.values(filter).every((v) => v === undefined);
      return {
        body: { audit: plain ? await deps.audit.recent(query.limit) : await deps.audit.search(filter, query.limit) },
      };
    }
    if (r === 'webhook_log') return { body: { webhook_log: await deps.webhookLog.recent(query.limit) } };
    if (r === 'outbox') return { body: { outbox: await deps.outbox.list(query.limit) } };
    if (r === LIMITS) return { body: { limits: limitsView(deps.config) } };
    return { body: { [r]: readOne(r) } };
  },
});

const write = route({
  method: 'post',
  path: '/admin',
  access: 'admin',
  summary: 'Write a configuration resource, an agent or an article',
  description:
    'Lists are replaced whole ({ "<r>": [ … ] }); objects are written whole (omitted fields take their ' +
    'defaults, omitted write-only secrets are kept while their destination stays the same); agents and kb ' +
    'are created (no id; 201) or updated (id; 200) one at a time. A new password for an existing agent ' +
    'ends their passkeys (passkey_count 0). From an agent’s session, changing an agent’s email or password ' +
    'needs a recent check of the password or a second factor (POST /v1/session/verify; else 403 ' +
    'verification_required).',
  query: z.object({ r: resourceParam }),
  body: {
    schema: z.record(z.string(), z.unknown()),
    encodings: ['json'],
    documented: z.union([
      ...CONFIG_RESOURCE_NAMES.map((r) => CONFIG_RESOURCES[r].input.describe(`r=${r}`)),
      AgentInputSchema.describe('r=agents'),
      ArticleInputSchema.describe('r=kb'),
      KeyInputSchema.describe('r=keys: a new key'),
      KeyOriginsInputSchema.describe("r=keys with id: a public key's allowed origins"),
      WebhookSecretInputSchema.describe('r=webhook_secrets'),
    ]),
  },
  responses: {
    200: { description: 'The resource as a read answers it, or the updated entry', schema: WriteAnswer },
    201: {
      description: 'The new agent, article or key (the key itself shown only here)',
      schema: z.xor([AgentAnswer, ArticleAnswer, NewKeyAnswer]),
    },
  },
  errors: {
    404: ['resource_not_found', 'agent_not_found', 'article_not_found', 'key_not_found'],
    405: ['method_not_allowed'],
    403: ['verification_required'],
    409: ['status_in_use', 'last_admin'],
  },
  async handler({ actor, query, body }, deps) {
    const r = known(query.r);
    if (isConfigResource(r)) {
      const { data, created } = await CONFIG_RESOURCES[r].write(deps.configStore, body, {
        ticketsWithStatus: async (status) =>
          (await deps.tickets.live.count({ status })) + (await deps.tickets.test.count({ status })),
        allowLocalWebhooks: deps.config.webhooksAllowLocal,
      });
      const value = CONFIG_RESOURCES[r].read(data);
      await audit(deps, actor, 'config.update', r, Array.isArray(value) ? { count: value.length } : {});
      return { body: { [r]: value, ...(created.length ? { webhook_secrets_created: created } : {}) } };
    }
    if (r === WEBHOOK_SECRETS) {
      const input = validate(WebhookSecretInputSchema, body);
      const { data, created } = await setWebhookSecret(deps.configStore, input);
      await audit(deps, actor, input.secret ? 'webhook_secret.set' : 'webhook_secret.rotate', input.url);
      return {
        body: {
          [WEBHOOK_SECRETS]: webhookSecretsView(data),
          ...(created.length ? { webhook_secrets_created: created } : {}),
        },
      };
    }
    if (r === 'agents') {
      const input = validate(AgentInputSchema, body);
      const before = deps.configStore.get().agents.find((a) => a.id === input.id);
      // A new email or password for an agent is how a stolen admin session would keep an account (a
      // reset mail to its own address, a password it knows): a session must have re-checked recently.
      if (
        before &&
        (input.password || input.one_time_password || input.email.toLowerCase() !== before.email.toLowerCase())
      )
        requireRecentVerification(actor, deps.clock().getTime());
      if (input.invite && !mailConfigured(deps.configStore.get().mail))
        throw validationError('invite', 'needs working mail (r=mail); without it, use one_time_password');
      const { agent, created, password } = await upsertAgent(deps.configStore, input, deps.clock());
      const invited = input.invite ? await mailAccountLink(deps, agent.id, 'invite') : undefined;
      await audit(deps, actor, created ? 'agent.create' : 'agent.update', agent.id, {
        password_changed: Boolean(input.password || password),
        ...(password ? { one_time_password: true } : {}),
        ...(input.invite ? { invited: true } : {}),
      });
      return {
        status: created ? 201 : 200,
        body: { agent: agentView(invited ?? agent), ...(password ? { password } : {}) },
      };
    }
    if (r === KEYS) {
      const by: KeyChanger = { actor, via: 'api' };
      if ('id' in body) {
        const input = validate(KeyOriginsInputSchema, body);
        const changed = await setKeyOrigins(deps.keys, deps.audit, input.id, input.origins, deps.clock(), by);
        if (!changed) throw keyNotFound('active public key');
        return { body: { api_key: apiKeyView(changed) } };
      }
      const { key, stored } = await addKey(deps.keys, deps.audit, validate(KeyInputSchema, body), deps.clock(), by);
      return { status: 201, body: { key, api_key: apiKeyView(stored) } };
    }
    if (r === 'kb') {
      const { article, created } = await upsertArticle(
        deps.configStore,
        validate(ArticleInputSchema, body),
        deps.clock(),
      );
      await audit(deps, actor, created ? 'article.create' : 'article.update', article.id, {
        published: article.published,
      });
      return { status: created ? 201 : 200, body: { article } };
    }
    throw readOnly(r);
  },
});

const remove = route({
  method: 'delete',
  path: '/admin',
  access: 'admin',
  summary: 'Remove an agent or an article, or revoke an API key (r=agents|kb|keys, id=…)',
  description:
    "A deleted agent's tickets become unassigned, in both modes. A revoked key is refused from the next " +
    'request on (the key the request itself uses included); it stays in the list as revoked.',
  query: z.object({ r: resourceParam, id: z.string().min(1, 'is required').max(100).describe('the entry') }),
  responses: { 200: { description: 'Deleted', schema: DeletedSchema } },
  errors: {
    404: ['resource_not_found', 'agent_not_found', 'article_not_found', 'key_not_found'],
    405: ['method_not_allowed'],
    409: ['last_admin'],
  },
  async handler({ actor, query }, deps) {
    const r = known(query.r);
    const { id } = query;
    if (r === 'agents') {
      await removeAgent(deps.configStore, id);
      const unassigned = await unassignAgent(deps, id);
      await audit(deps, actor, 'agent.delete', id, { unassigned });
    } else if (r === 'kb') {
      await removeArticle(deps.configStore, id);
      await audit(deps, actor, 'article.delete', id);
    } else if (r === KEYS) {
      // By id only: a prefix or a public key (which revokeKey also takes, for the CLI) is no id here.
      if (!(await deps.keys.list()).some((k) => k.id === id && !k.revoked_at)) throw keyNotFound('active key');
      await revokeKey(deps.keys, deps.audit, id, deps.clock(), { actor, via: 'api' });
    } else if (r === 'all' || r === 'priorities' || r === LIMITS || isOneOf(LOG_RESOURCES, r)) {
      throw readOnly(r);
    } else {
      throw new ApiError(405, 'method_not_allowed', `Entries of ${r} cannot be deleted one by one.`, {
        headers: { Allow: 'GET, POST' },
      });
    }
    return { body: { id, deleted: true as const } };
  },
});

const keyNotFound = (what: string) => new ApiError(404, 'key_not_found', `There is no ${what} with this id.`);

/** A deleted agent's tickets become unassigned, in both modes. */
async function unassignAgent(deps: AdminDeps, agentId: string) {
  let count = 0;
  for (const store of [deps.tickets.live, deps.tickets.test]) {
    const { items } = await store.list({ agent_id: agentId }, Number.MAX_SAFE_INTEGER, 0);
    for (const item of items) {
      await store.update(item.id, (t) => ({
        ticket: { ...t, agent_id: null, updated_at: deps.clock().toISOString() },
      }));
      count++;
    }
  }
  return count;
}

export const adminRoutes = [read, write, remove];
