import { z } from 'zod';
import { auditEntry } from '../audit/audit.js';
import {
  AutoreplySchema,
  BusinessHoursSchema,
  EmailNotifySchema,
  SmtpSchema,
  type ConfigData,
} from '../model/index.js';
import { withSmtpPass } from '../admin/secrets.js';
import { smtpView } from '../admin/views.js';
import type { Deps } from '../deps.js';
import { readBody } from '../http/body.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';

// The same stored objects as /admin mail.email_notify, mail.smtp, autoreply and business_hours.
const SettingsInput = z.object({
  email_notify: EmailNotifySchema.optional(),
  smtp: SmtpSchema.optional(),
  autoreply: AutoreplySchema.optional(),
  business_hours: BusinessHoursSchema.optional(),
});

const settingsView = (d: ConfigData) => ({
  email_notify: d.mail.email_notify,
  smtp: smtpView(d.mail.smtp),
  autoreply: d.autoreply,
  business_hours: d.business_hours,
});

export function settingsRoutes(route: Route, deps: Deps) {
  route('get', 'settings', async (ctx) => {
    ctx.body = settingsView(deps.configStore.get());
  });

  /**
   * Replaces the sub-objects it names and leaves the others. The settings are live ones (mail goes to
   * real customers through the real SMTP server), so a test key may read them but not change them.
   */
  route(
    'post',
    'settings',
    async (ctx) => {
      const input = validate(SettingsInput, (await readBody(ctx)).fields);
      const next = await deps.configStore.update((d) => {
        if (input.email_notify) d.mail.email_notify = input.email_notify;
        if (input.smtp) d.mail.smtp = withSmtpPass(input.smtp, d.mail.smtp);
        if (input.autoreply) d.autoreply = input.autoreply;
        if (input.business_hours) d.business_hours = input.business_hours;
      });
      const changed = Object.keys(input).filter((k) => input[k as keyof typeof input] !== undefined);
      await deps.audit.append(
        auditEntry(deps.clock(), { kind: 'secret', prefix: ctx.state.auth.prefix }, 'settings.update', 'settings', {
          changed,
        }),
      );
      ctx.body = settingsView(next);
    },
    'sk_live',
  );
}
