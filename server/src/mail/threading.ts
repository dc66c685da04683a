import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';

/**
 * The line above which a customer types their answer: the mail-in pipeline cuts everything from it
 * on (inbound/reply-text.ts), so our own quoted mail never lands in the ticket again.
 */
export const REPLY_MARKER = '-- reply above this line --';

/** What RFC 3834 says about a mail: automatic mail must not be answered automatically. */
export type AutoSubmitted = 'auto-generated' | 'auto-replied';

/** The threading headers of one outgoing mail (nodemailer's names). */
export interface Threading {
  messageId: string;
  inReplyTo: string;
  references: string[];
  replyTo?: string;
}

const TOKEN_LENGTH = 16;

/**
 * The signed part of a reply address: HMAC-SHA256(secret, the parts joined by `|`), 16 hex characters
 * (64 bits). Derived, not stored, so every ticket has one, old ones included; unguessable without the
 * secret, so knowing a ticket id is not a way to write into it by mail. Hex, so a relay that lowercases
 * the local part does not break it. A customer's is over `reply|<ticket id>`; an agent's over their id,
 * the ticket's and an expiry (agentReplyAddress), so one agent's address is no use to another.
 */
function replyToken(secret: string, ...parts: string[]): string {
  return createHmac('sha256', secret).update(parts.join('|')).digest('hex').slice(0, TOKEN_LENGTH);
}

/** Compares a token from an address with the one expected, in constant time. */
function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given.toLowerCase());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const splitAddress = (address: string) => {
  const at = address.lastIndexOf('@');
  return { local: address.slice(0, at), domain: address.slice(at + 1) };
};

/** The domain of the support address: our Message-IDs are made in it. */
const mailDomain = (fromAddress: string) => splitAddress(fromAddress).domain.toLowerCase();

/** `support+<ticket id>.<token>@domain`: where a customer's answer to a ticket's mail goes. */
export function replyAddress(fromAddress: string, secret: string, ticketId: string): string {
  const { local, domain } = splitAddress(fromAddress);
  const base = local.split('+')[0];
  return `${base}+${ticketId}.${replyToken(secret, 'reply', ticketId)}@${domain}`;
}

/**
 * The ticket a recipient address names, when it is a reply address of `fromAddress` whose token is
 * right; undefined for the support address itself, another address or a wrong token.
 */
export function ticketOfReplyAddress(recipient: string, fromAddress: string, secret: string): string | undefined {
  const support = splitAddress(fromAddress);
  const rcpt = splitAddress(recipient.trim());
  if (rcpt.domain.toLowerCase() !== support.domain.toLowerCase()) return undefined;
  const base = support.local.split('+')[0]!.toLowerCase();
  const m = /^([^+]+)\+(tkt_[A-Za-z0-9]+)\.([0-9a-fA-F]+)$/.exec(rcpt.local);
  if (!m || m[1]!.toLowerCase() !== base) return undefined;
  return sameToken(m[3]!, replyToken(secret, 'reply', m[2]!)) ? m[2] : undefined;
}

const DAY_MS = 86_400_000;
/** How long an agent's reply address works after the notification that carried it was queued. */
const AGENT_REPLY_DAYS = 30;

/**
 * `support+<ticket id>.a<expiry>.<token>@domain`: where an agent's answer to a notification about a
 * ticket goes (inbound/agent-reply.ts). The token is signed over the agent's id, the ticket's and the
 * expiry (a day number, base 36), so it names who may answer which ticket until when; the agent's id
 * itself is not in the address (the local part stays within RFC 5321's 64 characters): the mail's
 * sender names the agent, and the token must be theirs.
 */
export function agentReplyAddress(
  fromAddress: string,
  secret: string,
  agentId: string,
  ticketId: string,
  now: Date,
): string {
  const { local, domain } = splitAddress(fromAddress);
  const expiry = Math.ceil((now.getTime() + AGENT_REPLY_DAYS * DAY_MS) / DAY_MS).toString(36);
  return `${local.split('+')[0]}+${ticketId}.a${expiry}.${replyToken(secret, 'agent-reply', agentId, ticketId, expiry)}@${domain}`;
}

/** An agent's reply address read back: its ticket, its expiry, and whether it was made for a given agent. */
export interface AgentReplyAddress {
  ticketId: string;
  expiresAt: Date;
  madeFor(agentId: string): boolean;
}

/**
 * The agent's reply address among `recipient` when it has the shape agentReplyAddress makes, for the
 * support address's domain and local part; undefined for anything else. Its token is checked only
 * against an agent (`madeFor`): whose it must be follows from the sender.
 */
export function parseAgentReplyAddress(
  recipient: string,
  fromAddress: string,
  secret: string,
): AgentReplyAddress | undefined {
  const support = splitAddress(fromAddress);
  const rcpt = splitAddress(recipient.trim());
  if (rcpt.domain.toLowerCase() !== support.domain.toLowerCase()) return undefined;
  const m = /^([^+]+)\+(tkt_[A-Za-z0-9]+)\.a([0-9a-z]{1,8})\.([0-9a-fA-F]+)$/.exec(rcpt.local);
  if (!m || m[1]!.toLowerCase() !== support.local.split('+')[0]!.toLowerCase()) return undefined;
  const [, , ticketId, expiry, token] = m as unknown as [string, string, string, string, string];
  return {
    ticketId,
    expiresAt: new Date(parseInt(expiry, 36) * DAY_MS),
    madeFor: (agentId) => sameToken(token, replyToken(secret, 'agent-reply', agentId, ticketId, expiry)),
  };
}

/** Whether `recipient` is the support address or one of its `+…` forms (the receiver's RCPT check). */
export function isSupportAddress(recipient: string, fromAddress: string): boolean {
  const support = splitAddress(fromAddress);
  const rcpt = splitAddress(recipient.trim());
  if (rcpt.domain.toLowerCase() !== support.domain.toLowerCase()) return false;
  const base = support.local.split('+')[0]!.toLowerCase();
  const local = rcpt.local.toLowerCase();
  return local === support.local.toLowerCase() || local === base || local.startsWith(`${base}+`);
}

/** The Message-ID every mail of a ticket refers to: a thread root of our own that never was sent. */
const ticketRootId = (ticketId: string, domain: string) => `<${ticketId}@${domain}>`;

/**
 * Headers that thread a ticket's mails in the reader's client: a new Message-ID made in our domain
 * with the ticket id in it (so an answer's In-Reply-To/References lead back to the ticket), and a
 * reference to the ticket's root and to the mail the ticket came from, if it came by mail.
 * Made when the mail is queued, so a retry sends the same Message-ID.
 */
export function threadHeaders(
  ticketId: string,
  fromAddress: string,
  options: { secret?: string; origin?: string | null } = {},
): Threading {
  const domain = mailDomain(fromAddress);
  const root = ticketRootId(ticketId, domain);
  const references = [...(options.origin ? [options.origin] : []), root];
  return {
    messageId: `<${ticketId}.${randomToken(16)}@${domain}>`,
    inReplyTo: references[references.length - 1]!,
    references,
    ...(options.secret ? { replyTo: replyAddress(fromAddress, options.secret, ticketId) } : {}),
  };
}

/** The ticket ids our own Message-IDs in `ids` (In-Reply-To, References) name, newest first. */
export function ticketsOfMessageIds(ids: string[], fromAddress: string): string[] {
  const domain = mailDomain(fromAddress);
  const found: string[] = [];
  for (const id of [...ids].reverse()) {
    const m = /^<?(tkt_[A-Za-z0-9]+)(?:\.[A-Za-z0-9]+)?@([^>]+)>?$/.exec(id.trim());
    if (m && m[2]!.toLowerCase() === domain && !found.includes(m[1]!)) found.push(m[1]!);
  }
  return found;
}

/**
 * The server's secret for reply tokens, made once and kept in the configuration (so every instance
 * sharing a database uses the same one). Set only if still unset: two instances racing agree.
 */
export function tokenSecret(configStore: ConfigStore): Promise<string> {
  const known = configStore.get().mail_token_secret;
  if (known) return Promise.resolve(known);
  // One write however many mails ask at once (a burst of new tickets on a fresh server).
  let making = makingSecret.get(configStore);
  if (!making) {
    const made = randomToken(40);
    making = configStore
      .update((d) => {
        d.mail_token_secret ??= made;
      })
      .then((data) => data.mail_token_secret!)
      .finally(() => makingSecret.delete(configStore));
    makingSecret.set(configStore, making);
  }
  return making;
}

const makingSecret = new WeakMap<ConfigStore, Promise<string>>();
