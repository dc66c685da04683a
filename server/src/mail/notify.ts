import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { TicketEvent } from '../events/events.js';
import type { KeyMode, Ticket } from '../model/index.js';
import { openState } from '../hours/business-hours.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { signLink } from '../links/magic-link.js';
import type { Outbox } from '../outbox/outbox.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';
import { mailConfigured, type MailMessage } from './mailer.js';
import { recordDelivery, withDelivery, type ReplyRef } from './reply-delivery.js';
import {
  autoreplyMail,
  confirmationMail,
  customerReplyAgentMail,
  customerTicketLink,
  mentionMail,
  newTicketAgentMail,
  supportReplyMail,
} from './templates.js';
import { queueAgentMail } from './agent-mail.js';
import { threadHeaders, tokenSecret, type Threading } from './threading.js';

const HOUR = 3_600_000;
/**
 * Automatic answers (autoreply, confirmation) one sender address gets for mail it sent, per day: a
 * loop with an autoresponder that slipped past the header checks (inbound/) ends here.
 */
const MAIL_AUTOREPLIES_PER_DAY = 5;

/** What the mail listener needs (the app's Deps provides it). */
export interface MailListenerDeps {
  config: Pick<Config, 'customerMailPerHour'>;
  configStore: ConfigStore;
  /** Where a support reply's mail records its delivery state (mail/reply-delivery.ts). */
  tickets: Record<KeyMode, TicketStore>;
  outbox: Outbox;
  /** Counts customer mail per address and hour (TICKETING_CUSTOMER_MAIL_PER_HOUR). */
  rateLimiter: RateLimiter;
  logger: Logger;
  clock: () => Date;
  publicUrl: () => string;
}

/**
 * Queues the mail a ticket event causes, per the settings (API.md, "Mail"). Queued durably before the
 * request is answered; sent by the outbox. Without an SMTP host and a from address nothing is queued.
 *  - created: the autoreply to the customer when it is on (its outside-hours text outside business
 *    hours), else a short confirmation when email_notify.customer_on_create; the agents when
 *    agents_on_create.
 *  - replied by support: the customer when customer_on_reply; by the customer: the agents when
 *    agents_on_customer_reply.
 *  - mentioned: each active agent a note names (`@Name`), but not its writer, at their own address.
 */
export function mailListener(deps: MailListenerDeps) {
  return async (e: TicketEvent) => {
    const config = deps.configStore.get();
    const { mail } = config;
    if (!mailConfigured(mail)) return;
    const url = deps.publicUrl();
    const notify = mail.email_notify;
    const from = mail.from_address!;
    /** The ticket as this listener left it (a support reply's `delivery`), for the later listeners and the answer. */
    let changed: Ticket | undefined;
    // Every mail of a ticket threads with the others; the customer's carries the ticket's reply address.
    const queueForAgents = (to: string[], make: (to: string[], canReply: boolean) => MailMessage) =>
      queueAgentMail(deps, config, e.mode, e.ticket.id, to, make);
    // The customer's way back to the ticket: a signed link, valid 30 days, revocable by support.
    const link = () => customerTicketLink(e.ticket, url, signLink(config.link_secret, e.mode, e.ticket, deps.clock()));
    /**
     * Mail to a customer's address that a public key caused. Anyone with the public key can file a
     * ticket in any address's name, so these are limited per address and hour: over the limit the
     * mail is not queued, and the log says so (with the ticket, not the address).
     */
    // A ticket that came by mail: the answer threads under the customer's own mail.
    const customerThreading = async () =>
      threadHeaders(e.ticket.id, from, {
        secret: await tokenSecret(deps.configStore),
        origin: e.mail?.messageId ?? null,
      });
    const queueForCustomer = async (m: MailMessage & { reply?: ReplyRef }, made?: Threading) => {
      if (e.mail && m.auto_submitted) {
        const address = e.mail.from.trim().toLowerCase();
        if (await deps.rateLimiter.hit(`mail-autoreply|${address}`, MAIL_AUTOREPLIES_PER_DAY, 24 * HOUR)) {
          deps.logger.warn({ ticket: e.ticket.id }, 'mail: this sender had its automatic answers for the day');
          await deps.outbox.hold(
            'mail',
            m,
            e.mode,
            'suppressed_limit',
            'per-sender limit of automatic answers to mail',
          );
          return;
        }
      }
      if (e.actor.kind === 'customer') {
        const address = e.ticket.email.trim().toLowerCase();
        if (await deps.rateLimiter.hit(`customer-mail|${address}`, deps.config.customerMailPerHour, HOUR)) {
          deps.logger.warn(
            { ticket: e.ticket.id, limit: deps.config.customerMailPerHour },
            'mail: this customer address had its mails for the hour; this one is not sent',
          );
          await deps.outbox.hold('mail', m, e.mode, 'suppressed_limit', 'per-recipient limit of customer mail');
          return;
        }
      }
      const threading = made ?? (await customerThreading());
      await deps.outbox.enqueue('mail', { ...m, threading }, e.mode);
    };
    if (e.type === 'ticket.created') {
      const { autoreply } = config;
      if (autoreply.enabled) {
        const outside = autoreply.outside_hours_message && !openState(config.business_hours, deps.clock()).open_now;
        await queueForCustomer(
          autoreplyMail(
            e.ticket,
            autoreply.subject,
            outside ? autoreply.outside_hours_message! : autoreply.message,
            link(),
            e.mail?.refused,
          ),
        );
      } else if (notify.customer_on_create) {
        await queueForCustomer(confirmationMail(e.ticket, link(), e.mail?.refused));
      }
      if (notify.agents_on_create && notify.agent_emails.length)
        await queueForAgents(notify.agent_emails, (to, canReply) => newTicketAgentMail(e.ticket, to, url, canReply));
    }
    if (e.type === 'ticket.replied' && e.reply) {
      if (!e.reply.from_customer && notify.customer_on_reply) {
        const reply = { ticket_id: e.ticket.id, reply_id: e.reply.id };
        // Recorded before the mail is queued, so the outbox's `sent` (or `failed`) always comes after
        // it. Test mode sends nothing, and records nothing.
        // The Message-ID is fixed now and kept on the reply, so a bounce that returns it finds the reply.
        const threading = await customerThreading();
        const queued = { state: 'queued' as const, at: deps.clock().toISOString(), message_id: threading.messageId };
        if (e.mode === 'live') await recordDelivery(deps.tickets.live, reply, queued);
        await queueForCustomer({ ...supportReplyMail(e.ticket, e.reply, link()), reply }, threading);
        if (e.mode === 'live') changed = withDelivery(e.ticket, e.reply.id, queued);
      }
      if (e.reply.from_customer && notify.agents_on_customer_reply && notify.agent_emails.length) {
        const reply = e.reply;
        await queueForAgents(notify.agent_emails, (to, canReply) =>
          customerReplyAgentMail(e.ticket, reply, to, url, canReply),
        );
      }
    }
    if (e.type === 'ticket.mentioned' && e.reply?.mentions) {
      const writer = e.actor.kind === 'agent' ? e.actor.agent.id : undefined;
      for (const id of e.reply.mentions) {
        const agent = config.agents.find((a) => a.id === id && a.active);
        const note = e.reply;
        if (agent && id !== writer)
          await queueForAgents([agent.email], (to, canReply) => mentionMail(e.ticket, note, to[0]!, url, canReply));
      }
    }
    return changed;
  };
}
