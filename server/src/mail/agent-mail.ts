import { sameEmail, type ConfigData, type KeyMode } from '../model/index.js';
import type { Outbox } from '../outbox/outbox.js';
import type { ConfigStore } from '../store/config-store.js';
import type { MailMessage } from './mailer.js';
import { agentReplyAddress, threadHeaders, tokenSecret } from './threading.js';

/**
 * Queues a notification to agents' addresses (a new ticket, a customer's reply, a mention, a rule's
 * notify): each address that is an active agent's gets its own copy, with a Reply-To signed for that
 * agent and ticket, so their answer by mail becomes their reply (inbound/agent-reply.ts); the other
 * addresses (a shared mailbox) share one copy, which cannot be answered that way. `make` writes the
 * mail for its recipients, with the "answer by mail" paragraph when `canReply`.
 */
export async function queueAgentMail(
  deps: { outbox: Outbox; configStore: ConfigStore; clock: () => Date },
  config: ConfigData,
  mode: KeyMode,
  ticketId: string,
  to: string[],
  make: (to: string[], canReply: boolean) => MailMessage,
): Promise<void> {
  const from = config.mail.from_address!;
  const others: string[] = [];
  const secret = await tokenSecret(deps.configStore);
  for (const address of to) {
    const agent = config.agents.find((a) => a.active && sameEmail(a.email, address));
    // Test mode's mail is never sent, and mail in answers live tickets only.
    if (!agent || mode !== 'live') {
      others.push(address);
      continue;
    }
    const replyTo = agentReplyAddress(from, secret, agent.id, ticketId, deps.clock());
    await deps.outbox.enqueue(
      'mail',
      { ...make([address], true), threading: { ...threadHeaders(ticketId, from), replyTo } },
      mode,
    );
  }
  if (others.length)
    await deps.outbox.enqueue('mail', { ...make(others, false), threading: threadHeaders(ticketId, from) }, mode);
}
