// The public shapes of API.md. The widget imports these with `import type`, so there is one source of
// truth for what crosses the wire and no zod in the bundle.

export type Priority = 'low' | 'normal' | 'high' | 'urgent';
export const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high', 'urgent'];

export interface Attachment {
  id: string;
  ticket_id: string;
  reply_id: string | null;
  name: string;
  size: number;
  type: string;
  created_at: string;
}

export interface Reply {
  id: string;
  message: string;
  from_customer: boolean;
  author: string | null;
  created_at: string;
  attachments: Attachment[];
}

export interface CloseRequest {
  by: 'customer' | 'agent';
  requested_at: string;
}

export interface Rating {
  score: number;
  comment: string | null;
  rated_at: string;
}

/** The full view (sk) and the record as stored on disk. */
export interface Ticket {
  id: string;
  subject: string;
  message: string;
  name: string;
  email: string;
  status: string;
  priority: Priority;
  category: string | null;
  fields: Record<string, string | number | boolean>;
  page_url: string | null;
  agent_id: string | null;
  tags: string[];
  close_request: CloseRequest | null;
  rating: Rating | null;
  replies: Reply[];
  attachments: Attachment[];
  due_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What a public key sees. */
export type PublicTicket = Omit<Ticket, 'agent_id' | 'tags' | 'due_at'>;

/** One row of /list. */
export type TicketListItem = Omit<Ticket, 'message' | 'replies' | 'attachments'> & {
  reply_count: number;
  last_reply_at: string | null;
};

export interface ListPage<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

export type FieldType = 'text' | 'textarea' | 'number' | 'email' | 'url' | 'select' | 'checkbox' | 'date';

export interface CategoryField {
  id: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: string[];
  placeholder?: string | null;
}

export interface Category {
  id: string;
  name: string;
  fields: CategoryField[];
}

export interface Status {
  id: string;
  name: string;
  closed: boolean;
  color: string | null;
}

export interface Meta {
  categories: Category[];
  statuses: Status[];
  priorities: Priority[];
}

export interface Me {
  key: { kind: 'public' | 'secret'; mode: 'live' | 'test'; admin: boolean; prefix: string };
  portal: { name: string; public_url: string };
  version: string;
}

export interface ApiErrorBody {
  error: { code: string; message: string; param?: string; details?: { param: string; message: string }[] };
}
