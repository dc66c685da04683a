import type { Context } from 'koa';
import { z } from 'zod';
import { auditEntry } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import { readBody } from '../http/body.js';
import { formInt, optional } from '../http/coerce.js';
import { ApiError, notFound, validationError, type ErrorDetail } from '../http/errors.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';
import { newId } from '../store/ids.js';
import { hashPassword } from './passwords.js';
import { withSmtpPass, withTurnstileSecret } from './secrets.js';
import { checkReferences, statusUsesInConfig } from './references.js';
import {
  ALL_RESOURCES,
  ENTRY_RESOURCES,
  isKnown,
  isList,
  isObject,
  LIST_RESOURCES,
  LOG_RESOURCES,
  OBJECT_RESOURCES,
  WEBHOOK_SECRETS,
  type ListResource,
  type ObjectResource,
} from './resources.js';
import { AgentInputSchema, ArticleInputSchema, WebhookSecretInputSchema, type ConfigData } from './schema.js';
import { agentView, resourceView } from './views.js';
import { createdSecrets, newWebhookSecret, webhookUses } from './webhook-secrets.js';

const LogQuery = z.object({
  limit: optional(formInt.pipe(z.number().min(1, 'must be at least 1'))).transform((n) => Math.min(n ?? 100, 500)),
});

function resourceOf(ctx: Context): string {
  const r = ctx.query.r;
  if (typeof r !== 'string' || r === '') throw validationError('r', 'names the resource, e.g. r=all or r=design');
  if (!isKnown(r)) throw new ApiError(404, 'resource_not_found', `There is no resource "${r.slice(0, 40)}".`);
  return r;
}

const isReadOnly = (r: string) => r === 'all' || r === 'priorities' || (LOG_RESOURCES as readonly string[]).includes(r);
const readOnly = (r: string) =>
  new ApiError(405, 'method_not_allowed', `${r} is read-only.`, { headers: { Allow: 'GET' } });

const invalid = (details: ErrorDetail[]) =>
  new ApiError(400, 'validation_failed', `${details[0]!.param}: ${details[0]!.message}`, {
    param: details[0]!.param,
    details,
  });

export function adminRoutes(route: Route, deps: Deps) {
  const { configStore } = deps;
  const refOptions = { allowLocalWebhooks: deps.config.webhooksAllowLocal };
  const audit = (ctx: Context, action: string, target: string | null, details: Record<string, unknown> = {}) =>
    deps.audit.append(
      auditEntry(deps.clock(), { kind: 'secret', prefix: ctx.state.auth.prefix }, action, target, details),
    );

  route('get', 'admin', async (ctx) => {
    const r = resourceOf(ctx);
    const data = configStore.get();
    if (r === 'all') {
      ctx.body = Object.fromEntries(ALL_RESOURCES.map((name) => [name, resourceView(name, data)]));
    } else if ((LOG_RESOURCES as readonly string[]).includes(r)) {
      const { limit } = validate(LogQuery, ctx.query);
      const entries =
        r === 'audit'
          ? deps.audit.recent(limit)
          : r === 'webhook_log'
            ? deps.webhookLog.recent(limit)
            : deps.outbox.list(limit);
      ctx.body = { [r]: entries };
    } else {
      ctx.body = { [r]: resourceView(r, data) };
    }
  });

  route('post', 'admin', async (ctx) => {
    const r = resourceOf(ctx);
    if (isReadOnly(r)) throw readOnly(r);
    const { fields: body } = await readBody(ctx, { jsonOnly: true });

    if (isList(r)) {
      const value = validate(z.object({ [r]: LIST_RESOURCES[r] }), body)[r];
      const current = configStore.get();
      const next = await writeList(r, value as never);
      await audit(ctx, 'config.update', r, { count: (next[r] as unknown[]).length });
      // A webhook URL new to the configuration got a secret: this answer is the one place it is shown.
      const created = createdSecrets(current, next, givenSecretUrls(r, value));
      ctx.body = { [r]: resourceView(r, next), ...(created.length ? { webhook_secrets_created: created } : {}) };
    } else if (isObject(r)) {
      const value = validate(OBJECT_RESOURCES[r], body);
      const next = await writeObject(r, value);
      await audit(ctx, 'config.update', r);
      ctx.body = { [r]: resourceView(r, next) };
    } else if (r === 'agents') {
      await upsertAgent(ctx, validate(AgentInputSchema, body));
    } else if (r === 'kb') {
      await upsertArticle(ctx, validate(ArticleInputSchema, body));
    } else if (r === WEBHOOK_SECRETS) {
      await setWebhookSecret(ctx, validate(WebhookSecretInputSchema, body));
    }
  });

  route('delete', 'admin', async (ctx) => {
    const r = resourceOf(ctx);
    if (!(ENTRY_RESOURCES as readonly string[]).includes(r)) {
      if (isReadOnly(r)) throw readOnly(r);
      throw new ApiError(405, 'method_not_allowed', `Entries of ${r} cannot be deleted one by one.`, {
        headers: { Allow: 'GET, POST' },
      });
    }
    const { id } = validate(z.object({ id: z.string().min(1, 'is required').max(100) }), ctx.query);
    if (r === 'agents') {
      if (!configStore.get().agents.some((a) => a.id === id)) throw notFound('agent');
      await configStore.update((d) => void (d.agents = d.agents.filter((a) => a.id !== id)));
      const unassigned = await unassignAgent(id);
      await audit(ctx, 'agent.delete', id, { unassigned });
    } else {
      if (!configStore.get().kb.some((a) => a.id === id)) throw notFound('article');
      await configStore.update((d) => void (d.kb = d.kb.filter((a) => a.id !== id)));
      await audit(ctx, 'article.delete', id);
    }
    ctx.body = { id, deleted: true };
  });

  async function writeList<R extends ListResource>(r: R, value: ConfigData[R]) {
    const current = configStore.get();
    if (r === 'statuses') {
      const kept = new Set((value as ConfigData['statuses']).map((s) => s.id));
      const details: ErrorDetail[] = [];
      for (const s of current.statuses) {
        if (kept.has(s.id)) continue;
        const tickets = ticketsWithStatus(s.id);
        if (tickets)
          details.push({ param: 'statuses', message: `"${s.id}" is still the status of ${tickets} ticket(s)` });
        const uses = statusUsesInConfig(current, s.id);
        if (uses.length) details.push({ param: 'statuses', message: `"${s.id}" is still used by ${uses.join(', ')}` });
      }
      if (details.length) {
        throw new ApiError(409, 'status_in_use', details[0]!.message, { param: 'statuses', details });
      }
    }
    const refs = checkReferences(r, { ...current, [r]: value }, refOptions);
    if (refs.length) throw invalid(refs);
    return configStore.update((d) => void (d[r] = value));
  }

  async function writeObject<R extends ObjectResource>(r: R, value: ConfigData[R]) {
    const current = configStore.get();
    // Write-only secrets: kept when omitted, but never carried to a new destination (admin/secrets.ts).
    let next = value;
    if (r === 'mail') {
      const mail = value as ConfigData['mail'];
      next = { ...mail, smtp: withSmtpPass(mail.smtp, current.mail.smtp) } as ConfigData[R];
    }
    if (r === 'turnstile') {
      next = withTurnstileSecret(value as ConfigData['turnstile'], current.turnstile) as ConfigData[R];
    }
    const refs = checkReferences(r, { ...current, [r]: next }, refOptions);
    if (refs.length) throw invalid(refs);
    return configStore.update((d) => void (d[r] = next));
  }

  async function upsertAgent(ctx: Context, input: z.infer<typeof AgentInputSchema>) {
    const agents = configStore.get().agents;
    const existing = input.id === undefined ? undefined : agents.find((a) => a.id === input.id);
    if (input.id !== undefined && !existing) throw notFound('agent');
    const email = input.email.toLowerCase();
    if (agents.some((a) => a.email.toLowerCase() === email && a.id !== input.id))
      throw validationError('email', 'another agent has this email');
    const password_hash = input.password ? await hashPassword(input.password) : (existing?.password_hash ?? null);
    const agent = {
      id: existing?.id ?? newId('agt'),
      name: input.name,
      email: input.email,
      role: input.role,
      active: input.active,
      password_hash,
      two_factor_secret:
        input.two_factor_secret === undefined ? (existing?.two_factor_secret ?? null) : input.two_factor_secret,
      passkeys: input.passkeys ?? existing?.passkeys ?? [],
      created_at: existing?.created_at ?? deps.clock().toISOString(),
    };
    await configStore.update((d) => {
      d.agents = existing ? d.agents.map((a) => (a.id === agent.id ? agent : a)) : [...d.agents, agent];
    });
    await audit(ctx, existing ? 'agent.update' : 'agent.create', agent.id, {
      password_changed: Boolean(input.password),
    });
    ctx.status = existing ? 200 : 201;
    ctx.body = { agent: agentView(agent) };
  }

  async function upsertArticle(ctx: Context, input: z.infer<typeof ArticleInputSchema>) {
    const existing = input.id === undefined ? undefined : configStore.get().kb.find((a) => a.id === input.id);
    if (input.id !== undefined && !existing) throw notFound('article');
    const at = deps.clock().toISOString();
    const article = {
      id: existing?.id ?? newId('art'),
      title: input.title,
      body: input.body,
      published: input.published,
      created_at: existing?.created_at ?? at,
      updated_at: at,
    };
    await configStore.update((d) => {
      d.kb = existing ? d.kb.map((a) => (a.id === article.id ? article : a)) : [...d.kb, article];
    });
    await audit(ctx, existing ? 'article.update' : 'article.create', article.id, { published: article.published });
    ctx.status = existing ? 200 : 201;
    ctx.body = { article };
  }

  /**
   * Sets one webhook URL's secret, or, without `secret`, rotates it to a generated one, which this
   * answer shows once. Deliveries from then on are signed with it.
   */
  async function setWebhookSecret(ctx: Context, input: z.infer<typeof WebhookSecretInputSchema>) {
    if (!webhookUses(configStore.get()).has(input.url))
      throw validationError('url', 'is not a webhook URL of the configuration (modules, rules or escalation)');
    const secret = input.secret ?? newWebhookSecret();
    const next = await configStore.update((d) => {
      d.webhook_secrets = d.webhook_secrets.map((s) => (s.url === input.url ? { url: s.url, secret } : s));
    });
    await audit(ctx, input.secret ? 'webhook_secret.set' : 'webhook_secret.rotate', input.url);
    ctx.body = {
      [WEBHOOK_SECRETS]: resourceView(WEBHOOK_SECRETS, next),
      ...(input.secret ? {} : { webhook_secrets_created: [{ url: input.url, secret }] }),
    };
  }

  function ticketsWithStatus(status: string) {
    return deps.tickets.live.list({ status }, 1, 0).total + deps.tickets.test.list({ status }, 1, 0).total;
  }

  /** A deleted agent's tickets become unassigned, in both modes. */
  async function unassignAgent(agentId: string) {
    let count = 0;
    for (const store of [deps.tickets.live, deps.tickets.test]) {
      const { items } = store.list({ agent_id: agentId }, Number.MAX_SAFE_INTEGER, 0);
      for (const item of items) {
        await store.update(item.id, (t) => ({
          ticket: { ...t, agent_id: null, updated_at: deps.clock().toISOString() },
        }));
        count++;
      }
    }
    return count;
  }
}

/** The URL whose secret a modules write gives itself (so it is not reported as generated). */
function givenSecretUrls(r: ListResource, value: unknown): Set<string> {
  if (r !== 'modules') return new Set();
  const settings = (value as ConfigData['modules']).find((m) => m.name === 'webhooks')?.settings;
  return new Set(settings?.secret !== undefined ? [settings.url] : []);
}
