import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { checkBlocklists } from '../abuse/blocklist.js';
import type { Config } from '../config/config.js';
import type { TicketEvents } from '../events/events.js';
import { checkFile, ORIGINAL_MAIL_TYPE, type CheckedFile } from '../files/check-file.js';
import type { Quotas } from '../files/quota.js';
import { ApiError } from '../http/errors.js';
import { MAX_FILE_BYTES } from '../http/multipart.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { LiveEvents } from '../live/live-events.js';
import { withDelivery } from '../mail/reply-delivery.js';
import { ticketOfReplyAddress, ticketsOfMessageIds, tokenSecret } from '../mail/threading.js';
import {
  newId,
  sameEmail,
  SYSTEM,
  type Attachment,
  type Reply,
  type Ticket,
  type TicketEventType,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { FileBlob, StoredTicket, TicketStore } from '../store/ticket-store.js';
import type { IdempotencyCache } from '../tickets/idempotency.js';
import { nextAssignee } from '../tickets/assignment.js';
import { derive } from '../tickets/sla.js';
import { afterCustomerMessage, firstOpenStatus } from '../tickets/statuses.js';
import { agentAnswerOf, mailActor, withAgentAnswer, type AgentAnswer } from './agent-reply.js';
import { loopReason, type Bounce } from './classify.js';
import { attachmentName } from './attachment-names.js';
import { MESSAGE_MAX, type ParsedInbound } from './parse-mail.js';
import { MailParseFailed, type ParserThread } from './parser-thread.js';
import { senderVerified, type DnsResolver, type SmtpSession } from './verify-sender.js';

export interface InboundDeps {
  configStore: ConfigStore;
  tickets: { live: TicketStore };
  events: TicketEvents;
  idempotency: IdempotencyCache;
  quotas: Quotas;
  rateLimiter: RateLimiter;
  config: Pick<Config, 'rateLimit'>;
  clock: () => Date;
  logger: Logger;
  dns: DnsResolver | undefined;
  /** Tells consoles showing a ticket that a bounce changed it. */
  live: Pick<LiveEvents, 'changed'>;
}

/** What became of one mail. */
export type Outcome =
  | { kind: 'created'; ticket: string }
  | { kind: 'replied'; ticket: string; reply: string; unverified?: true }
  /** An agent's answer to a notification (agent-reply.ts): their reply to the customer, or a note. */
  | { kind: 'agent_replied'; ticket: string; reply: string; agent: string; internal?: true }
  /** Delivered before (the same Message-ID): nothing new. */
  | { kind: 'duplicate'; ticket: string }
  /** A bounce: the tickets whose customer address now counts as bouncing, the support replies it returned. */
  | { kind: 'bounce'; tickets: string[]; replies: string[] }
  /** Automatic mail (an autoresponder, a list, a bounce of nothing of ours): dropped, logged. */
  | { kind: 'ignored'; reason: string }
  /** A blocked or rate-limited sender: not a ticket, but kept for review (inbound/spool.ts). */
  | { kind: 'refused'; reason: string };

/** A mail the pipeline cannot use (no sender, no configured address): kept in the failed folder. */
export class UnusableMail extends Error {}

/** The tag a ticket gets when mail to its customer bounced (the console shows tags). */
export const BOUNCING_TAG = 'email-bouncing';

const SCOPE = 'mail|live|inbound';
const SUBJECT_MAX = 300;
const NAME_MAX = 200;
const oneLine = (s: string, max: number) =>
  s
    .replace(/[\r\n\t]+/g, ' ')
    .trim()
    .slice(0, max);

interface Checked {
  ok: CheckedFile[];
  /** Each refused file named, with the reason. */
  refused: string[];
  original: Buffer;
}

/**
 * Turns one mail into a ticket or a reply (or a bounce mark, or nothing, for automatic mail): parsed
 * in the parser thread (parse-mail.ts: new text only, bounded), attachments through the upload checks,
 * the original kept as an .eml attachment. Idempotent by Message-ID for as long as Idempotency-Keys are
 * kept (24 h): a redelivery, or the spool processing a mail again after a crash, finds what the first
 * delivery made.
 */
export class MailIn {
  constructor(
    private readonly deps: InboundDeps,
    private readonly parser: ParserThread,
  ) {}

  /**
   * `recipients`: the envelope's RCPT TO, when known (SMTP); the To/Cc headers count as well.
   * `session`: who handed us the mail over SMTP (none over IMAP), for the sender's SPF check and the
   * client's new-ticket limit.
   */
  async process(raw: Buffer, recipients: string[] = [], session?: SmtpSession): Promise<Outcome> {
    const { deps } = this;
    const config = deps.configStore.get();
    const support = config.mail.from_address;
    if (!support) throw new UnusableMail('mail.from_address is not set: there is no support address');
    const mail = await this.parser.parse(raw).catch((err: unknown) => {
      // Parsing this mail failed for what it is (its shape, its size): trying again changes nothing.
      throw err instanceof MailParseFailed ? new UnusableMail(err.message) : err;
    });
    if (mail.senderError) throw new UnusableMail(mail.senderError);
    const sender = mail.sender;
    if (!sender || !sender.includes('@')) throw new UnusableMail('the mail names no sender address');

    if (mail.bounce) return this.bounce(mail.bounce, support);
    const loop = loopReason(mail, support);
    if (loop) return { kind: 'ignored', reason: loop };

    const messageId = mail.messageId;
    const key =
      messageId && /^[\x20-\x7e]{1,200}$/.test(messageId)
        ? messageId
        : `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    const text = mail.text;
    // The quoted part set aside (parse-mail.ts), kept for staff beside the message it came with.
    const quoted = mail.quoted ? { quoted: mail.quoted } : {};
    try {
      checkBlocklists(config.blocklists, { ip: '', email: sender, texts: [mail.subject, text] });
    } catch (err) {
      if (err instanceof ApiError) return { kind: 'refused', reason: 'the sender or text is on a blocklist' };
      throw err;
    }

    const secret = await tokenSecret(deps.configStore);
    const answer = await agentAnswerOf(mail, recipients, raw, session, {
      config,
      secret,
      now: deps.clock(),
      dns: deps.dns,
      getTicket: (id) => deps.tickets.live.get(id),
    });
    if (answer && 'refused' in answer) throw new UnusableMail(answer.refused);
    if (answer) return this.agentAnswer(answer, mail, raw, key);
    const found = await this.ticketFor(mail, recipients, sender, support, secret, raw, session);
    const target = found?.ticket;
    const unverified = found?.unverified === true;
    if (!target && deps.config.rateLimit.enabled) {
      const wait = await deps.rateLimiter.hit(
        `mail-create|${sender}`,
        deps.config.rateLimit.pkCreatesPer10Minutes,
        600_000,
      );
      if (wait) return { kind: 'refused', reason: 'this sender opened too many tickets by mail in 10 minutes' };
      // One client opened 30 tickets in seconds by changing From each time (issue 28).
      const client = session?.clientIp;
      if (
        client &&
        (await deps.rateLimiter.hit(
          `mail-create-client|${client}`,
          deps.config.rateLimit.mailClientCreatesPer10Minutes,
          600_000,
        ))
      )
        return { kind: 'refused', reason: 'this client address opened too many tickets by mail in 10 minutes' };
    }

    const checked = await this.checkFiles(mail, raw);
    let ran = false;
    let outcome: Outcome | undefined;
    const store = deps.tickets.live;
    const ticket = await deps.idempotency.run(
      SCOPE,
      key,
      { key },
      async (record) => {
        ran = true;
        const at = deps.clock().toISOString();
        if (target) {
          let reply: Reply | undefined;
          let previous: StoredTicket | undefined;
          let refused: string[] = [];
          const updated = await store.update(target.id, (current) => {
            previous = current;
            const replyId = newId('rpl');
            const files = this.attach(checked, current, at, current.id, replyId);
            refused = files.refused;
            reply = {
              id: replyId,
              message: withNote(text, files.refused),
              ...quoted,
              from_customer: true,
              author: current.name,
              created_at: at,
              attachments: files.attachments,
              ...(unverified ? { unverified: true as const } : {}),
            };
            // An unverified mail, like a note, leaves what the customer sees alone (updated_at too).
            let next: StoredTicket = {
              ...current,
              replies: [...current.replies, reply],
              updated_at: unverified ? current.updated_at : at,
            };
            // A customer writing reopens a ticket that waits on them or is closed and ends its snooze,
            // as on /reply; a mail that only claims to be theirs does not (issue 28).
            if (!unverified) next = afterCustomerMessage(next, config, at);
            return { ticket: derive(next, config), files: files.blobs, idempotency: record };
          });
          if (!updated || !reply) throw new UnusableMail(`ticket ${target.id} is gone`);
          outcome = { kind: 'replied', ticket: updated.id, reply: reply.id, ...(unverified ? { unverified } : {}) };
          return deps.events.emit({
            type: 'ticket.replied',
            mode: 'live',
            actor: SYSTEM,
            ticket: updated,
            previous,
            reply,
            mail: { from: sender, messageId, refused },
          });
        }
        const id = newId('tkt');
        const files = this.attach(checked, undefined, at, id, null);
        const fromName = mail.name;
        const created = await store.create({
          ticket: derive(
            {
              id,
              subject: oneLine(mail.subject, SUBJECT_MAX) || '(no subject)',
              message: withNote(text, files.refused),
              ...quoted,
              name: oneLine(fromName || sender.slice(0, sender.indexOf('@')), NAME_MAX),
              email: sender,
              status: firstOpenStatus(config.statuses),
              priority: 'normal',
              category: null,
              fields: {},
              page_url: null,
              agent_id: await nextAssignee(config, store),
              tags: [],
              close_request: null,
              rating: null,
              replies: [],
              attachments: files.attachments,
              due_at: null,
              closed_at: null,
              created_at: at,
              updated_at: at,
            },
            config,
          ),
          files: files.blobs,
          idempotency: record,
        });
        outcome = { kind: 'created', ticket: id };
        return deps.events.emit({
          type: 'ticket.created',
          mode: 'live',
          actor: SYSTEM,
          ticket: created,
          mail: { from: sender, messageId, refused: files.refused },
        });
      },
      async (id) => {
        const found = await store.recallIdempotency(id);
        return found && { ...found, answer: () => store.get(found.ticketId) };
      },
    );
    if (!ran || !outcome) return { kind: 'duplicate', ticket: ticket.id };
    return outcome;
  }

  /**
   * An agent's answer by mail, checked (agent-reply.ts), added as their reply or note as the console
   * adds it, with the same events (mail to the customer and its delivery state, live, webhooks,
   * audit). Its files go with it; the original mail only with a note (staff only): a reply's files
   * are the customer's to see, and the quoted notification may hold a colleague's note.
   */
  private async agentAnswer(answer: AgentAnswer, mail: ParsedInbound, raw: Buffer, key: string): Promise<Outcome> {
    const { deps } = this;
    const store = deps.tickets.live;
    const checked = await this.checkFiles(mail, raw);
    let outcome: Outcome | undefined;
    const ticket = await deps.idempotency.run(
      SCOPE,
      key,
      { key },
      async (record) => {
        const config = deps.configStore.get();
        const at = deps.clock().toISOString();
        let reply: Reply | undefined;
        let previous: StoredTicket | undefined;
        const updated = await store.update(answer.ticket.id, (current) => {
          previous = current;
          const id = newId('rpl');
          const files = this.attach(checked, current, at, current.id, id, answer.note);
          const added = withAgentAnswer(
            current,
            { ...answer, message: withNote(answer.message, files.refused) },
            { id, at, quoted: mail.quoted, attachments: files.attachments },
            config,
          );
          reply = added.reply;
          return { ticket: added.ticket, files: files.blobs, idempotency: record };
        });
        if (!updated || !reply || !previous) throw new UnusableMail(`ticket ${answer.ticket.id} is gone`);
        const actor = mailActor(answer.agent);
        const emit = (type: TicketEventType, t: Ticket) =>
          deps.events.emit({ type, mode: 'live', actor, ticket: t, previous, reply });
        let final = await emit(answer.note ? 'ticket.note_added' : 'ticket.replied', updated);
        if (reply.mentions) final = await emit('ticket.mentioned', final);
        if (final.status !== previous.status) final = await emit('ticket.status_changed', final);
        outcome = {
          kind: 'agent_replied',
          ticket: updated.id,
          reply: reply.id,
          agent: answer.agent.id,
          ...(answer.note ? { internal: true as const } : {}),
        };
        return final;
      },
      async (id) => {
        const found = await store.recallIdempotency(id);
        return found && { ...found, answer: () => store.get(found.ticketId) };
      },
    );
    return outcome ?? { kind: 'duplicate', ticket: ticket.id };
  }

  /**
   * A bounce. The support reply whose mail it returns, found by the exact Message-ID that mail went out
   * with (recorded on the reply: mail/reply-delivery.ts), is marked `bounced` with the reason: a
   * Message-ID names its ticket and holds 16 random characters only its recipients saw, so a forged
   * bounce marks no reply of a ticket it does not name, and no reply it does not name exactly. The
   * ticket of such a reply, and each ticket whose mail it returns (our Message-IDs in the returned
   * headers) whose `email` is a failed recipient, get the bouncing tag. Nothing else happens: a bounce
   * never opens a ticket, answers one or sends mail. One that matches nothing of ours is kept in the
   * failed folder with the reason (spool.ts), for someone to read.
   */
  private async bounce(bounce: Bounce, support: string): Promise<Outcome> {
    const { deps } = this;
    const store = deps.tickets.live;
    const at = deps.clock().toISOString();
    const marked: string[] = [];
    const replies: string[] = [];
    const ids = new Set(bounce.messageIds);
    for (const id of ticketsOfMessageIds(bounce.messageIds, support)) {
      let bounced: string | undefined;
      let changed = false;
      const updated = await store.update(id, (current) => {
        bounced = undefined;
        changed = false;
        const reply = current.replies.find((r) => r.delivery?.message_id && ids.has(r.delivery.message_id));
        const failed = bounce.recipients.includes(current.email.trim().toLowerCase());
        if (!reply && !failed) return { ticket: current };
        let next = current;
        if (reply) {
          bounced = reply.id;
          if (reply.delivery?.state !== 'bounced') {
            const delivery = {
              state: 'bounced' as const,
              at,
              error: bounce.reason,
              message_id: reply.delivery!.message_id!,
            };
            next = withDelivery(next, reply.id, delivery);
            changed = true;
          }
        }
        if (!next.tags.includes(BOUNCING_TAG)) {
          next = { ...next, tags: [...next.tags, BOUNCING_TAG], updated_at: at };
          changed = true;
        }
        return { ticket: next };
      });
      if (!updated) continue;
      if (bounced) replies.push(bounced);
      if (
        updated.tags.includes(BOUNCING_TAG) &&
        (bounced || bounce.recipients.includes(updated.email.trim().toLowerCase()))
      )
        marked.push(id);
      // Consoles showing the ticket show the bounced reply without a reload.
      if (changed) await deps.live.changed('live', updated, SYSTEM);
    }
    if (!marked.length)
      throw new UnusableMail(`a bounce (${bounce.reason}) that returns no mail of ours: no reply or ticket matches it`);
    deps.logger.warn({ tickets: marked, replies }, 'mail in: a bounce; the customer address counts as bouncing');
    return { kind: 'bounce', tickets: marked, replies };
  }

  /**
   * The ticket this mail answers, if its sender is that ticket's customer: by the reply address's
   * token, else by our Message-IDs in In-Reply-To/References. Anyone else's mail opens a new ticket:
   * knowing a ticket's address or ids is no way into it. Message-IDs are no secret, and a From header
   * is anyone's to write: a mail found by them alone speaks as the customer only when its sender's
   * domain vouches for it (DKIM, or SPF with our SMTP session); otherwise it is `unverified` (issue 28).
   */
  private async ticketFor(
    mail: ParsedInbound,
    recipients: string[],
    sender: string,
    support: string,
    secret: string,
    raw: Buffer,
    session: SmtpSession | undefined,
  ): Promise<{ ticket: StoredTicket; unverified: boolean } | undefined> {
    const store = this.deps.tickets.live;
    const rcpts = [...recipients, ...mail.to, ...mail.cc];
    const byToken = rcpts.map((r) => ticketOfReplyAddress(r, support, secret)).filter((t) => t !== undefined);
    const refs = [...mail.references];
    if (mail.inReplyTo) refs.push(mail.inReplyTo);
    for (const id of [...new Set([...byToken, ...ticketsOfMessageIds(refs, support)])]) {
      const t = await store.get(id);
      if (t && sameEmail(t.email, sender)) {
        // The reply address's token is signed by us: only mail we sent to the customer carries it.
        const verified = byToken.includes(id) || (await senderVerified(raw, sender, session, this.deps.dns));
        return { ticket: t, unverified: !verified };
      }
      if (t)
        this.deps.logger.warn(
          { ticket: id },
          'mail in: a reply from another address than the ticket’s opens a new ticket',
        );
    }
    return undefined;
  }

  /**
   * The mail's files that pass the upload checks (types, 5 MB, sniffed content; inline images too),
   * the refused ones named with the reason, and the original mail whole as an .eml for support.
   */
  private async checkFiles(mail: ParsedInbound, raw: Buffer): Promise<Checked> {
    const ok: CheckedFile[] = [];
    const refused: string[] = [];
    for (const [i, a] of mail.attachments.entries()) {
      const name = await attachmentName(a, i);
      if (a.content.length > MAX_FILE_BYTES) {
        refused.push(`${name} (larger than 5 MB)`);
        continue;
      }
      try {
        const data = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
        ok.push(await checkFile({ field: 'attachments', filename: name, data }, 'attachments'));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        refused.push(`${name} (${err.message})`);
      }
    }
    // The original, as it arrived, for support to open in a mail client; a mail above the file limit
    // (its attachments are kept one by one) keeps its header and text instead.
    const headerEnd = raw.indexOf('\r\n\r\n');
    const original =
      raw.length <= MAX_FILE_BYTES
        ? raw
        : Buffer.concat([
            raw.subarray(0, Math.min(headerEnd < 0 ? 64 * 1024 : headerEnd + 4, 64 * 1024)),
            Buffer.from(`[The original mail was ${raw.length} bytes, too large to keep whole.]\r\n`),
          ]);
    return { ok, refused, original };
  }

  /** Attachments for one ticket or reply, within the ticket's file quota (refused beyond it). */
  private attach(
    checked: Checked,
    current: StoredTicket | undefined,
    at: string,
    ticketId: string,
    replyId: string | null,
    withOriginal = true,
  ) {
    const attachments: Attachment[] = [];
    const blobs: FileBlob[] = [];
    const refused = [...checked.refused];
    const add = (name: string, type: string, data: Buffer) => {
      const id = newId('fil');
      attachments.push({ id, ticket_id: ticketId, reply_id: replyId, name, size: data.length, type, created_at: at });
      blobs.push({ id, data });
    };
    const eml = { name: 'original-mail.eml', type: ORIGINAL_MAIL_TYPE, data: checked.original };
    try {
      this.deps.quotas.checkTicket(
        current,
        [...checked.ok, eml].map((f) => f.data.length),
        'attachments',
      );
      for (const f of checked.ok) add(f.name, f.type, f.data);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refused.push(...checked.ok.map((f) => `${f.name} (the ticket holds as many files as it may)`));
    }
    if (withOriginal) add(eml.name, eml.type, eml.data);
    return { attachments, blobs, refused };
  }
}

/** The text with a note naming the files that were not attached. */
function withNote(text: string, refused: string[]): string {
  if (!refused.length) return text;
  return `${text}\n\n[Not attached: ${refused.join('; ')}]`.slice(0, MESSAGE_MAX + 2000);
}
