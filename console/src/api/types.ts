import type { Attachment, Meta, Priority, Reply, Report, Team, Ticket, TicketListItem } from '@ticketing/server/model';

export type { Attachment, Meta, Priority, Report };

// Shapes of docs/api.md "Agents' sessions" and "Tickets for agents" (the console's contract) that the
// model does not declare yet; each says where in the contract it comes from.

/** The signed-in agent (POST/GET /v1/session). */
export interface SessionAgent {
  id: string;
  name: string;
  email: string;
  role: 'admin' | 'agent';
  two_factor_enabled: boolean;
  passkey_count: number;
  locale?: string | null;
  /** Markdown added under their replies (their own profile). */
  signature: string;
  /** Takes new tickets when assignment is round robin. */
  available: boolean;
  /** The inbox's density and the agent's saved views (their profile; absent from an older server). */
  density?: 'comfortable' | 'compact';
  saved_views?: SavedView[];
  /** The first sign-in with a one-time password: every other call answers 403 password_change_required. */
  must_change_password?: boolean;
}
/** Filters kept under a name (PATCH /v1/session/profile `saved_views`): /list's parameters. */
export interface SavedView {
  name: string;
  filters: {
    view?: string;
    status?: string;
    category?: string;
    priority?: string;
    tag?: string;
    agent_id?: string;
    q?: string;
    sort?: string;
  };
}
export interface Session {
  agent: SessionAgent;
  csrf_token: string;
}

export interface Passkey {
  id: string;
  name: string;
  created_at: string;
}

/** Who did something, in the activity of a ticket and in live events. */
export interface ActorRef {
  kind: string;
  id?: string;
  name?: string;
}

/** One entry of a ticket's `activity` (oldest first), shown between messages. */
export interface ActivityEntry {
  id: string;
  type: string;
  at: string;
  actor: ActorRef;
  from?: unknown;
  to?: unknown;
  value?: unknown;
}

/** A reply as staff see it: notes are replies with `internal: true`. */
export type ConsoleReply = Reply & { internal?: boolean; agent_id?: string | null };

/** The full view with the staff additions. */
export type ConsoleTicket = Omit<Ticket, 'replies'> & {
  replies: ConsoleReply[];
  activity?: ActivityEntry[];
  merged_into?: string | null;
};

export interface LastMessage {
  from_customer: boolean;
  internal: boolean;
  preview: string;
  at: string;
}

/** A /list row with the staff additions. */
export type ListItem = TicketListItem & {
  last_activity_at?: string;
  waiting_on?: 'us' | 'customer' | null;
  last_message?: LastMessage | null;
};

export interface TicketList {
  data: ListItem[];
  total: number;
  limit: number;
  offset: number;
}

export const VIEWS = [
  'needs_reply',
  'snoozed',
  'mine',
  'mentions',
  'unassigned',
  'due_soon',
  'overdue',
  'open',
  'closed',
  'all',
] as const;
export type ViewName = (typeof VIEWS)[number];
export const SORTS = ['activity', 'created', 'due', 'priority'] as const;
export type SortName = (typeof SORTS)[number];

export interface Counts {
  views: Record<ViewName, number>;
  statuses: Record<string, number>;
}

/** GET /v1/team: colleagues (id, name, role, active), macros, tags with colours, statuses, categories. */
export type { Team, TeamAgent } from '@ticketing/server/model';
/** GET /v1/customers: the panel beside a ticket (their tickets, the team's notes about them). */
export type { Customer, CustomerNote } from '@ticketing/server/model';
export type Macro = Team['macros'][number];
export type TagDef = Team['tags'][number];

export interface BulkSet {
  status?: string;
  priority?: Priority;
  agent_id?: string | null;
  add_tags?: string[];
  remove_tags?: string[];
}
export interface BulkResult {
  results: { id: string; ok: boolean; ticket?: ConsoleTicket; error?: { code: string; message: string } }[];
}

/** Data of the live events of /v1/events. */
export interface TicketEvent {
  ticket: ListItem;
  by?: ActorRef;
  /** ticket.mentioned: the agents the new note names. */
  mentioned?: string[];
}
export interface TypingEvent {
  ticket_id: string;
  agent: { id: string; name: string };
}

export interface TotpEnrolment {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}
