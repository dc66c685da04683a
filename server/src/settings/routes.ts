import { z } from 'zod';
import { auditEntry, type AuditLog } from '../audit/audit.js';
import { routeFor } from '../http/route.js';
import {
  AutoreplySchema,
  BusinessHoursSchema,
  EmailNotifySchema,
  SmtpSchema,
  SmtpViewSchema,
  type ConfigData,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import { withSmtpPass } from './secrets.js';
import { smtpView } from './views.js';

const route = routeFor<{ configStore: ConfigStore; audit: AuditLog; clock: () => Date }>();

// The same stored objects as /admin mail.email_notify, mail.smtp, autoreply and business_hours.
const SettingsInput = z.object({
  email_notify: EmailNotifySchema.optional(),
  smtp: SmtpSchema.optional(),
  autoreply: AutoreplySchema.optional(),
  business_hours: BusinessHoursSchema.optional(),
});

const SettingsSchema = z
  .object({
    email_notify: EmailNotifySchema,
    smtp: SmtpViewSchema,
    autoreply: AutoreplySchema,
    business_hours: BusinessHoursSchema,
  })
  .meta({ id: 'Settings' });

const settingsView = (d: ConfigData) => ({
  email_notify: d.mail.email_notify,
  smtp: smtpView(d.mail.smtp),
  autoreply: d.autoreply,
  business_hours: d.business_hours,
});

const read = route({
  method: 'get',
  path: '/settings',
  access: 'staff',
  summary: 'Read the mail settings',
  responses: { 200: { description: 'The settings (the SMTP password only as pass_set)', schema: SettingsSchema } },
  async handler(_req, deps) {
    return { body: settingsView(deps.configStore.get()) };
  },
});

/**
 * Replaces the sub-objects it names and leaves the others. The settings are live ones (mail goes to
 * real customers through the real SMTP server), so a test key may read them but not change them.
 */
const write = route({
  method: 'post',
  path: '/settings',
  access: 'admin',
  summary: 'Write the mail settings; replaces only the sub-objects named',
  body: { schema: SettingsInput, encodings: ['json', 'form', 'multipart'] },
  responses: { 200: { description: 'The settings as a read answers them', schema: SettingsSchema } },
  async handler({ actor, body: input }, deps) {
    const next = await deps.configStore.update((d) => {
      if (input.email_notify) d.mail.email_notify = input.email_notify;
      if (input.smtp) d.mail.smtp = withSmtpPass(input.smtp, d.mail.smtp);
      if (input.autoreply) d.autoreply = input.autoreply;
      if (input.business_hours) d.business_hours = input.business_hours;
    });
    const changed = Object.entries(input)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    await deps.audit.append(auditEntry(deps.clock(), actor, 'settings.update', 'settings', { changed }));
    return { body: settingsView(next) };
  },
});

export const settingsRoutes = [read, write];
