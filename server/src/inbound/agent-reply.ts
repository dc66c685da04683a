import { parseAgentReplyAddress, REPLY_MARKER } from '../mail/threading.js';
import { findMentions } from '../mentions/find-mentions.js';
import {
  domainOf,
  sameEmail,
  type Attachment,
  type ConfigData,
  type Reply,
  type RequestActor,
  type StoredAgent,
} from '../model/index.js';
import type { StoredTicket } from '../store/ticket-store.js';
import { withActivity } from '../tickets/activity.js';
import { signedMessage } from '../tickets/signature.js';
import { derive } from '../tickets/sla.js';
import { replyStatus, setStatus } from '../tickets/statuses.js';
import type { ParsedInbound } from './parse-mail.js';
import { senderVerified, type DnsResolver, type SmtpSession } from './verify-sender.js';

/**
 * The first line of an agent's answer by mail that makes it an internal note instead of a reply to
 * the customer: `#note` alone, or followed by the note's first words (`#note: checked the stock`).
 * The notification names it (mail/templates.ts).
 */
const NOTE_LINE = /^#note\b[ \t]*:?[ \t]*/i;

/** An agent's answer by mail that passed every check: who, to which ticket, and what. */
export interface AgentAnswer {
  agent: StoredAgent;
  ticket: StoredTicket;
  note: boolean;
  message: string;
}

/**
 * Whether a mail is an agent's answer to a notification (sent to the reply address agentReplyAddress
 * made for them, mail/threading.ts), and whether it may speak as that agent. Undefined when no
 * recipient is such an address, or when the ticket's customer wrote (their mail takes the usual
 * path). Otherwise either the answer, or why it is refused; a refused one never becomes an agent's
 * reply (the pipeline keeps it in the failed folder with the reason). It passes only when all hold:
 *  - the sender is an agent's address (never someone else's: a deleted agent is no one);
 *  - the address's token was signed for that agent and that ticket (so one agent's, or one ticket's,
 *    address is no use for another) and has not expired;
 *  - the agent is active and the ticket exists;
 *  - the mail verifiably comes from the agent's domain (an aligned DKIM signature, or an SPF pass with
 *    our SMTP session: verify-sender.ts), or that domain is in `mail.agent_reply_domains` (the admin
 *    vouches for their own mail system: the token alone, which only the agent's mailbox received).
 *    A From header is anyone's to write; the token alone leaks with any forwarded notification.
 */
export async function agentAnswerOf(
  mail: ParsedInbound,
  recipients: string[],
  raw: Buffer,
  session: SmtpSession | undefined,
  context: {
    config: ConfigData;
    secret: string;
    now: Date;
    dns: DnsResolver | undefined;
    getTicket: (id: string) => Promise<StoredTicket | undefined>;
  },
): Promise<AgentAnswer | { refused: string } | undefined> {
  const { config, secret } = context;
  const support = config.mail.from_address!;
  const address = [...recipients, ...mail.to, ...mail.cc]
    .map((r) => parseAgentReplyAddress(r, support, secret))
    .find((a) => a !== undefined);
  if (!address) return undefined;
  const sender = mail.sender;
  const ticket = await context.getTicket(address.ticketId);
  if (ticket && sameEmail(ticket.email, sender)) return undefined;
  const refused = (why: string) => ({ refused: `an answer to an agent’s notification, not taken: ${why}` });

  const agent = config.agents.find((a) => sameEmail(a.email, sender) && address.madeFor(a.id));
  if (!agent) {
    return config.agents.some((a) => sameEmail(a.email, sender))
      ? refused(`its reply address was made for another agent or another ticket than ${address.ticketId}`)
      : refused(`the sender ${sender} is no agent's address`);
  }
  if (context.now >= address.expiresAt)
    return refused(`its reply address expired on ${address.expiresAt.toISOString().slice(0, 10)}`);
  if (!agent.active) return refused(`the agent ${agent.id} is deactivated`);
  if (!ticket) return refused(`the ticket ${address.ticketId} is gone`);
  const vouched = config.mail.agent_reply_domains.includes(domainOf(sender));
  if (!vouched && !(await senderVerified(raw, sender, session, context.dns)))
    return refused(
      `nothing shows it comes from ${domainOf(sender)} (no DKIM signature of that domain, no SPF pass), ` +
        'and that domain is not in mail.agent_reply_domains',
    );

  const lines = mail.text.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const note = first >= 0 && NOTE_LINE.test(lines[first]!.trim());
  if (note) lines[first] = lines[first]!.trim().replace(NOTE_LINE, '');
  const message = lines.join('\n').trim();
  if (!message || message === '(no text)' || onlyQuote(message))
    return refused('it has no text above the quoted notification');
  return { agent, ticket, note, message };
}

/**
 * A text that is nothing but our notification quoted back (and the client's "On …, Support wrote:"
 * line above it): the pipeline keeps such a mail whole, where unsure, but it is no answer to send.
 */
function onlyQuote(text: string): boolean {
  if (!text.includes(REPLY_MARKER)) return false;
  const own = text.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('>'));
  return own.length === 0 || (own.length === 1 && own[0]!.trim().endsWith(':'));
}

/** The actor an agent's answer by mail acts as: the agent, as their console would (no session: by mail). */
export const mailActor = (agent: StoredAgent): RequestActor => ({
  kind: 'agent',
  mode: 'live',
  agent: { id: agent.id, name: agent.name, role: agent.role },
  session: 'mail',
  verified_at: 0,
});

/**
 * The ticket with an agent's answer by mail added as the console adds a reply or note (tickets/routes.ts,
 * /reply): signed with their profile's signature, by their name and id; a note keeps its `@Name`s; a
 * reply sets the workflow's reply status; the activity names the agent.
 */
export function withAgentAnswer(
  current: StoredTicket,
  answer: AgentAnswer,
  extra: { id: string; at: string; quoted: string; attachments: Attachment[] },
  config: ConfigData,
): { ticket: StoredTicket; reply: Reply } {
  const actor = mailActor(answer.agent);
  const { note, agent } = answer;
  const message = signedMessage(answer.message, actor, config, !note);
  const mentions = note
    ? findMentions(
        message,
        config.agents.filter((a) => a.active),
      )
    : [];
  const reply: Reply = {
    id: extra.id,
    message,
    ...(extra.quoted ? { quoted: extra.quoted } : {}),
    from_customer: false,
    author: agent.name,
    agent_id: agent.id,
    created_at: extra.at,
    attachments: extra.attachments,
    ...(note ? { internal: true as const } : {}),
    ...(mentions.length ? { mentions } : {}),
  };
  let next: StoredTicket = {
    ...current,
    replies: [...current.replies, reply],
    updated_at: note ? current.updated_at : extra.at,
  };
  const status = note ? undefined : replyStatus(config, undefined, undefined);
  if (status !== undefined && status !== next.status) next = setStatus(next, status, config.statuses, extra.at);
  return { ticket: derive(withActivity(current, next, actor, extra.at), config), reply };
}
