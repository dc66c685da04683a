import { auditEntry, type AuditLog } from '../audit/audit.js';
import { ApiError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { OutboxRetryAnswerSchema, OutboxRetryInputSchema } from '../model/index.js';
import type { Outbox } from './outbox.js';

const route = routeFor<{ outbox: Outbox; audit: AuditLog; clock: () => Date }>();

/**
 * "Retry now" for a delivery that failed and waits for its next try (mail or webhook): it becomes due at
 * once and the outbox sends it. A delivery given up after its last retry is no longer stored (its body
 * is not kept, r=outbox), so it cannot be retried: 404.
 */
const retry = route({
  method: 'post',
  path: '/admin/outbox-retry',
  access: 'admin',
  summary: 'Send a waiting delivery now instead of at its next try',
  body: { schema: OutboxRetryInputSchema, encodings: ['json', 'form'] },
  responses: { 200: { description: 'The delivery, now due', schema: OutboxRetryAnswerSchema } },
  errors: { 404: ['delivery_not_found'] },
  async handler({ actor, body }, deps) {
    const job = await deps.outbox.retryNow(body.id);
    if (!job)
      throw new ApiError(
        404,
        'delivery_not_found',
        'No delivery waits under this id: it was sent, given up after its last try, or is being sent now.',
        { param: 'id' },
      );
    await deps.audit.append(auditEntry(deps.clock(), actor, 'outbox.retry', job.id, { kind: job.kind }));
    return { body: { id: job.id, next_attempt_at: job.next_attempt_at } };
  },
});

export const outboxRoutes = [retry];
