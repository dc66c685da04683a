import type { Logger } from 'pino';
import type { LiveEvents } from '../live/live-events.js';
import { SYSTEM, type KeyMode, type ReplyDelivery, type Ticket } from '../model/index.js';
import type { Sender } from '../outbox/outbox.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';
import { mailConfigured, type Mailer, type MailMessage } from './mailer.js';
import { smtpFailure } from './smtp-failure.js';

/** The support reply a mail carries (on its outbox job), so what became of the mail shows on the reply. */
export interface ReplyRef {
  ticket_id: string;
  reply_id: string;
}

/**
 * Records a mail's state on its reply, leaving updated_at alone (the customer's view does not change).
 * `queued` never replaces a state already recorded: the outbox may have sent the mail first. Nothing
 * replaces `bounced` (a bounce is the last word on a mail that was sent), and the Message-ID the mail
 * went out with is kept through every state (a bounce finds the reply by it: inbound/mail-in.ts).
 */
export async function recordDelivery(store: TicketStore, ref: ReplyRef, delivery: ReplyDelivery) {
  return store.update(ref.ticket_id, (t) => ({
    ticket: {
      ...t,
      replies: t.replies.map((r) => {
        if (r.id !== ref.reply_id || r.delivery?.state === 'bounced') return r;
        if (delivery.state === 'queued' && r.delivery) return r;
        const messageId = delivery.message_id ?? r.delivery?.message_id;
        return { ...r, delivery: { ...delivery, ...(messageId ? { message_id: messageId } : {}) } };
      }),
    },
  }));
}

/** The ticket (of an event, or as stored) with one reply's delivery set. */
export const withDelivery = <T extends Ticket>(t: T, replyId: string, delivery: ReplyDelivery): T => ({
  ...t,
  replies: t.replies.map((r) => (r.id === replyId ? { ...r, delivery } : r)),
});

/**
 * The outbox's mail sender: sends, and records on the reply the mail carries (if any) `sent`, or
 * `failed` with the reason in one line (the SMTP server's refusal, or fixed words: never an address,
 * port or errno of ours, as for a test mail). A failed attempt is still retried by the outbox. A
 * record that cannot be written is logged, never a reason to send the mail again. Consoles showing the
 * ticket hear of it (ticket.changed) and show the new state without a reload.
 */
export function replyMailSender(
  deps: {
    configStore: ConfigStore;
    tickets: Record<KeyMode, TicketStore>;
    clock: () => Date;
    logger: Logger;
    live: Pick<LiveEvents, 'changed'>;
  },
  mailer: Mailer,
): Sender {
  return async (job) => {
    const message = job.payload as MailMessage & { reply?: ReplyRef };
    const mail = deps.configStore.get().mail;
    const record = async (delivery: Omit<ReplyDelivery, 'at'>) => {
      if (!message.reply) return;
      const mode = job.mode ?? 'live';
      try {
        const at = deps.clock().toISOString();
        const messageId = message.threading?.messageId;
        const ticket = await recordDelivery(deps.tickets[mode], message.reply, {
          ...delivery,
          at,
          ...(messageId ? { message_id: messageId } : {}),
        });
        if (ticket) await deps.live.changed(mode, ticket, SYSTEM);
      } catch (err) {
        deps.logger.error({ job: job.id, ticket: message.reply.ticket_id, err }, 'mail: could not record the delivery');
      }
    };
    try {
      await mailer.send(mail, message);
    } catch (err) {
      const error = mailConfigured(mail) ? smtpFailure(err, 10).error : 'mail is not configured';
      await record({ state: 'failed', error });
      throw err;
    }
    await record({ state: 'sent' });
  };
}
