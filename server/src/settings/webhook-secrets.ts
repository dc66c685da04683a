import { validationError } from '../http/errors.js';
import { newWebhookSecret, webhookUses, type WebhookSecretInputSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { z } from 'zod';

/**
 * Sets one webhook URL's secret, or, without `secret`, rotates it to a generated one, which the answer
 * shows once. Deliveries from then on are signed with it. Only a URL the configuration uses has one.
 */
export async function setWebhookSecret(store: ConfigStore, input: z.output<typeof WebhookSecretInputSchema>) {
  if (!webhookUses(store.get()).has(input.url))
    throw validationError('url', 'is not a webhook URL of the configuration (modules, rules or escalation)');
  const secret = input.secret ?? newWebhookSecret();
  const data = await store.update((d) => {
    d.webhook_secrets = d.webhook_secrets.map((s) => (s.url === input.url ? { url: s.url, secret } : s));
  });
  return { data, created: input.secret ? [] : [{ url: input.url, secret }] };
}
