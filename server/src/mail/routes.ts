import { auditEntry, type AuditLog } from '../audit/audit.js';
import { routeFor } from '../http/route.js';
import { MailTestInputSchema, MailTestResultSchema } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { sendTestMail } from './mailer.js';

const route = routeFor<{ configStore: ConfigStore; audit: AuditLog; clock: () => Date }>();

/**
 * "Send a test mail" of the console's mail settings: one mail through the SMTP settings as stored (save
 * first), answered with what the SMTP server said. A failure is an answer too (200, sent: false), so
 * the admin reads the server's refusal or the connection error where they set the settings.
 */
const mailTest = route({
  method: 'post',
  path: '/admin/mail-test',
  access: 'admin',
  summary: 'Send a test mail through the stored SMTP settings and report the SMTP server’s answer',
  body: { schema: MailTestInputSchema, encodings: ['json', 'form'] },
  responses: { 200: { description: 'What became of the test mail', schema: MailTestResultSchema } },
  async handler({ actor, body }, deps) {
    const mail = deps.configStore.get().mail;
    const result = await sendTestMail(mail, {
      to: [body.to],
      subject: `Test mail from ${mail.from_name}`,
      text: 'This is a test mail sent from the support console’s mail settings. No reply is needed.',
      html: '<p>This is a test mail sent from the support console’s mail settings. No reply is needed.</p>',
    });
    await deps.audit.append(
      auditEntry(deps.clock(), actor, 'mail.test', body.to, { sent: result.sent, error: result.error }),
    );
    return { body: result };
  },
});

export const mailRoutes = [mailTest];
