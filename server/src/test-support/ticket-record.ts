import type { Ticket } from '../model/index.js';

/**
 * A ticket as the stores keep it, written straight into a data directory or a store by tests that
 * seed many: an open, unassigned ticket without replies, with what the test gives over it.
 */
export function ticketRecord(given: Pick<Ticket, 'id' | 'number' | 'created_at'> & Partial<Ticket>): Ticket {
  return {
    subject: 'A question',
    message: 'm',
    name: 'N',
    email: 'n@example.com',
    status: 'open',
    priority: 'normal',
    category: null,
    fields: {},
    page_url: null,
    agent_id: null,
    tags: [],
    close_request: null,
    rating: null,
    replies: [],
    attachments: [],
    due_at: null,
    closed_at: null,
    updated_at: given.created_at,
    ...given,
  };
}
