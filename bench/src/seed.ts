import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from '../../server/src/model/ids.js';

const STATUSES = ['open', 'pending', 'answered', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];

/**
 * Writes `count` tickets in the server's real file format (one JSON file each) straight into a data
 * directory: seeding 100k tickets through the API would take minutes of fsyncs. Returns their ids.
 */
export function seed(dataDir: string, count: number): string[] {
  const dir = join(dataDir, 'live', 'tickets');
  mkdirSync(dir, { recursive: true });
  const ids: string[] = [];
  const start = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const id = `tkt_${randomToken(20)}`;
    const created = new Date(start + i * 60_000).toISOString();
    const status = STATUSES[i % 4]!;
    const replies = Array.from({ length: i % 4 }, (_, r) => ({
      id: `rpl_${randomToken(20)}`,
      message: `Reply ${r} to ticket ${i}: thank you for waiting, we are looking into it.`,
      from_customer: r % 2 === 1,
      author: r % 2 ? null : 'Grace',
      created_at: new Date(start + i * 60_000 + (r + 1) * 3_600_000).toISOString(),
      attachments: [],
    }));
    const ticket = {
      id,
      subject: `Order ${10_000 + i}: question about delivery`,
      message: `Hello, I ordered a teapot (order ${10_000 + i}) and would like to know when it arrives. `.repeat(3),
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
      replies,
      attachments: [],
      due_at: null,
      closed_at: status === 'closed' ? created : null,
      created_at: created,
      updated_at: created,
    };
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(ticket));
    ids.push(id);
  }
  return ids;
}
