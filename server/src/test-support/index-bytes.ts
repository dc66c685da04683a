// Prints what the list index holds per ticket, in bytes of V8 heap: `count` tickets, each parsed
// from its JSON text as start-up parses a ticket file, are added to a TicketIndex; the heap is
// measured after full collections before and after. Run with --expose-gc, in a process of its
// own (store/index-memory.test.ts), so nothing else in the heap moves the figure.
import { TicketIndex } from '../store/ticket-index.js';

const count = Number(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const START = Date.parse('2026-01-01T00:00:00Z');
const STATUSES = ['open', 'pending', 'answered', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const token = (i: number) => (i * 2654435761).toString(36).padStart(16, 'x').slice(-16);

/** One ticket's file text: a few hundred characters of message, up to three replies. */
function ticketText(i: number): string {
  const created = new Date(START + i * 60_000).toISOString();
  const status = STATUSES[i % 4]!;
  return JSON.stringify({
    id: `tkt_${token(i)}0000`,
    number: 1001 + i,
    subject: `Order ${10_000 + i}: a question about delivery`,
    message:
      `Hello, I ordered a teapot (order ${10_000 + i}) last week and would like to know when it arrives. `.repeat(3),
    name: `Customer ${i}`,
    email: `customer${i % 5000}@example.com`,
    status,
    priority: PRIORITIES[i % 4],
    category: null,
    fields: {},
    page_url: 'https://shop.example/cart',
    agent_id: null,
    tags: [],
    close_request: null,
    rating: null,
    replies: Array.from({ length: i % 4 }, (_, r) => ({
      id: `rpl_${token(i * 4 + r)}0000`,
      message: `Reply ${r} to ticket ${i}: thank you for waiting, we are looking into it.`,
      from_customer: r % 2 === 1,
      author: r % 2 ? null : 'Grace',
      created_at: new Date(START + i * 60_000 + (r + 1) * 3_600_000).toISOString(),
      attachments: [],
    })),
    attachments: [],
    due_at: null,
    closed_at: status === 'closed' ? created : null,
    created_at: created,
    updated_at: created,
  });
}

const index = new TicketIndex();
const before = heap();
for (let i = 0; i < count; i++) index.add(JSON.parse(ticketText(i)));
index.sorted();
const after = heap();
if (index.size !== count) throw new Error(`indexed ${index.size} of ${count}`);
process.stdout.write(`${JSON.stringify({ bytesPerTicket: (after - before) / count })}\n`);
