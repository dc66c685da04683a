import type { CustomerTicket, Ticket } from '../model/index.js';
import { isSupportReply } from '../tickets/views.js';

/** A ticket as its customer's lists show it (CustomerTicketSchema): what is unread is counted from support's replies (internal notes are none). */
export function customerTicket(t: Ticket): CustomerTicket {
  const support = t.replies.filter(isSupportReply);
  return {
    id: t.id,
    subject: t.subject,
    status: t.status,
    created_at: t.created_at,
    updated_at: t.updated_at,
    support_replies: support.length,
    last_reply_at: support.at(-1)?.created_at ?? null,
  };
}
