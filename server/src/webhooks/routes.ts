import { z } from 'zod';
import { auditEntry, type AuditLog } from '../audit/audit.js';
import type { Config } from '../config/config.js';
import { routeFor } from '../http/route.js';
import { newId, secretFor, WebhookTestResultSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { sendSigned } from './deliver.js';

const route = routeFor<{
  config: Pick<Config, 'webhooksAllowLocal'>;
  configStore: ConfigStore;
  audit: AuditLog;
  clock: () => Date;
}>();

/**
 * "Send a test event" of the console's webhook settings: one `ping` event, signed with the URL's secret,
 * through the same sending code (timeout, address rules) as real deliveries, to the webhooks module's
 * URL as stored. Not queued, not retried and not in webhook_log (its event is no ticket event): the
 * answer says what the receiver did.
 */
const webhookTest = route({
  method: 'post',
  path: '/admin/webhook-test',
  access: 'admin',
  summary: 'Send a signed test event (type ping) to the webhooks module’s URL and report the answer',
  body: { schema: z.object({}), encodings: ['json', 'form'], optional: true },
  responses: { 200: { description: 'What the receiver answered', schema: WebhookTestResultSchema } },
  async handler({ actor }, deps) {
    const config = deps.configStore.get();
    const module = config.modules.find((m) => m.name === 'webhooks');
    const url = module?.name === 'webhooks' ? (module.settings?.url ?? null) : null;
    const eventId = newId('evt');
    const secret = url ? secretFor(config, url) : undefined;
    const started = performance.now();
    const sent =
      url && secret
        ? await sendSigned(
            url,
            JSON.stringify({ id: eventId, type: 'ping', created_at: deps.clock().toISOString(), data: {} }),
            secret,
            deps.clock,
            { allowLocal: deps.config.webhooksAllowLocal },
          )
        : { status: null, error: 'the webhooks module has no URL' };
    const result = {
      url,
      event_id: eventId,
      ok: sent.error === null,
      status_code: sent.status,
      duration_ms: Math.round(performance.now() - started),
      error: sent.error,
    };
    await deps.audit.append(
      auditEntry(deps.clock(), actor, 'webhook.test', url, { status_code: result.status_code, error: result.error }),
    );
    return { body: result };
  },
});

export const webhookRoutes = [webhookTest];
