import type { Deps } from '../deps.js';
import type { TicketEvent } from '../events.js';
import { openState } from '../portal/business-hours.js';
import { mailConfigured } from './mailer.js';
import {
  autoreplyMail,
  confirmationMail,
  customerReplyAgentMail,
  newTicketAgentMail,
  supportReplyMail,
} from './templates.js';

/**
 * Queues the mail a ticket event causes, per the settings (API.md, "Mail"). Queued durably before the
 * request is answered; sent by the outbox. Without an SMTP host and a from address nothing is queued.
 *  - created: the autoreply to the customer when it is on (its outside-hours text outside business
 *    hours), else a short confirmation when email_notify.customer_on_create; the agents when
 *    agents_on_create.
 *  - replied by support: the customer when customer_on_reply; by the customer: the agents when
 *    agents_on_customer_reply.
 */
export function mailListener(deps: Deps) {
  return async (e: TicketEvent) => {
    const config = deps.configStore.get();
    const { mail } = config;
    if (!mailConfigured(mail)) return;
    const url = deps.config.publicUrl;
    const notify = mail.email_notify;
    const queue = (m: Parameters<typeof deps.outbox.enqueue>[1]) => deps.outbox.enqueue('mail', m);
    if (e.type === 'ticket.created') {
      const { autoreply } = config;
      if (autoreply.enabled) {
        const outside = autoreply.outside_hours_message && !openState(config.business_hours, deps.clock()).open_now;
        await queue(
          autoreplyMail(
            e.ticket,
            autoreply.subject,
            outside ? autoreply.outside_hours_message! : autoreply.message,
            url,
          ),
        );
      } else if (notify.customer_on_create) {
        await queue(confirmationMail(e.ticket, url));
      }
      if (notify.agents_on_create && notify.agent_emails.length)
        await queue(newTicketAgentMail(e.ticket, notify.agent_emails, url));
    }
    if (e.type === 'ticket.replied' && e.reply) {
      if (!e.reply.from_customer && notify.customer_on_reply) await queue(supportReplyMail(e.ticket, e.reply, url));
      if (e.reply.from_customer && notify.agents_on_customer_reply && notify.agent_emails.length) {
        await queue(customerReplyAgentMail(e.ticket, e.reply, notify.agent_emails, url));
      }
    }
  };
}
