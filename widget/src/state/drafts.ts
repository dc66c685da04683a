/** What the customer typed into the new-ticket form (files are not kept: they cannot be stored). */
export interface NewDraft {
  name?: string;
  email?: string;
  category?: string;
  subject?: string;
  message?: string;
  fields?: Record<string, string>;
}

interface Drafts {
  new?: NewDraft;
  /** Reply drafts by ticket id. */
  replies?: Record<string, string>;
  /** The name and email of the last ticket filed here: the next new-ticket form starts with them. */
  me?: { name?: string; email?: string };
}

// Beside the saved tickets (saved-tickets.ts), one key per public key. Like them, drafts survive
// closing the panel and reloading the page; without localStorage the widget works, it just forgets.
const storageKey = (publicKey: string) => `ticketing:drafts:${publicKey}`;

function read(publicKey: string): Drafts {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey(publicKey)) ?? '{}') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Drafts) : {};
  } catch {
    return {};
  }
}

function write(publicKey: string, drafts: Drafts) {
  try {
    const empty = !drafts.new && !drafts.me && !Object.keys(drafts.replies ?? {}).length;
    if (empty) localStorage.removeItem(storageKey(publicKey));
    else localStorage.setItem(storageKey(publicKey), JSON.stringify(drafts));
  } catch {
    /* see read */
  }
}

const blank = (d: NewDraft) =>
  !d.name && !d.email && !d.category && !d.subject && !d.message && !Object.values(d.fields ?? {}).some(Boolean);

const object = <T>(d: T | undefined) => (d && typeof d === 'object' ? d : {});
export const loadNewDraft = (publicKey: string): NewDraft => object(read(publicKey).new);
/** Who filed the last ticket on this device (forgotten with the tickets). */
export const loadMe = (publicKey: string): NonNullable<Drafts['me']> => object(read(publicKey).me);

/** Keeps the new-ticket form as typed; an empty form removes the draft. `me`: who filed a ticket. */
export function saveNewDraft(publicKey: string, draft: NewDraft, me?: Drafts['me']) {
  const drafts = read(publicKey);
  if (blank(draft)) delete drafts.new;
  else drafts.new = draft;
  if (me) drafts.me = me;
  write(publicKey, drafts);
}

export const loadReplyDraft = (publicKey: string, ticketId: string): string => {
  const text = read(publicKey).replies?.[ticketId];
  return typeof text === 'string' ? text : '';
};

/** Keeps a reply as typed; an empty text removes the draft. */
export function saveReplyDraft(publicKey: string, ticketId: string, text: string) {
  const drafts = read(publicKey);
  const replies = { ...drafts.replies };
  if (text.trim()) replies[ticketId] = text;
  else delete replies[ticketId];
  drafts.replies = replies;
  write(publicKey, drafts);
}

/** Drops the reply drafts of tickets no longer remembered, or every draft (forget). */
export function dropDrafts(publicKey: string, keepTickets?: string[]) {
  if (!keepTickets) return write(publicKey, {});
  const drafts = read(publicKey);
  drafts.replies = Object.fromEntries(Object.entries(drafts.replies ?? {}).filter(([id]) => keepTickets.includes(id)));
  write(publicKey, drafts);
}
