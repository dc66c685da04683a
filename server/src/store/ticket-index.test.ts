import { describe, expect, it } from 'vitest';
import type { Ticket } from '../model/index.js';
import { listItem, TicketIndex } from './ticket-index.js';

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['open', 'pending', 'answered', 'closed'];

function ticket(id: number, created: number, status: string, email: string): Ticket {
  const at = new Date(Date.UTC(2026, 0, 1) + created * 1000).toISOString();
  return {
    id: `tkt_${String(id).padStart(16, '0')}`,
    subject: `subject ${id}`,
    message: `message ${id}`,
    name: `name ${id}`,
    email,
    status,
    priority: 'normal',
    category: id % 2 ? 'a' : 'b',
    fields: {},
    page_url: null,
    agent_id: null,
    tags: id % 3 ? [] : ['vip'],
    close_request: null,
    rating: null,
    replies: [],
    attachments: [],
    due_at: null,
    closed_at: null,
    created_at: at,
    updated_at: at,
  };
}

describe('TicketIndex', () => {
  it('answers every list exactly like a naive filter, through random puts, status changes and removals', () => {
    const rnd = random(42);
    const index = new TicketIndex();
    const model = new Map<string, Ticket>();
    for (let i = 0; i < 200; i++) {
      const t = ticket(i, Math.floor(rnd() * 500), STATUSES[i % 4]!, `c${i % 7}@x.example`);
      index.add(t);
      model.set(t.id, t);
    }
    index.sorted();
    let next = 200;
    for (let step = 0; step < 3000; step++) {
      const r = rnd();
      const ids = [...model.keys()];
      if (r < 0.4 || ids.length === 0) {
        // new ticket, sometimes with an older time (a clock that went back)
        const t = ticket(
          next++,
          Math.floor(r < 0.05 ? rnd() * 500 : 500 + step),
          STATUSES[Math.floor(rnd() * 4)]!,
          `c${next % 7}@x.example`,
        );
        index.put(t);
        model.set(t.id, t);
      } else if (r < 0.8) {
        const t = { ...model.get(ids[Math.floor(rnd() * ids.length)]!)!, status: STATUSES[Math.floor(rnd() * 4)]! };
        index.put(t);
        model.set(t.id, t);
      } else {
        const id = ids[Math.floor(rnd() * ids.length)]!;
        index.remove(id);
        model.delete(id);
      }
      if (step % 250 !== 0) continue;
      const naive = [...model.values()].sort((a, b) =>
        a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
      );
      for (const filter of [
        {},
        { status: 'open' },
        { status: 'closed', tag: 'vip' },
        { category: 'a' },
        { email: 'C3@x.example' },
        { status: 'nope' },
      ]) {
        const f = filter as Record<string, string>;
        const expected = naive.filter(
          (t) =>
            (f.status === undefined || t.status === f.status) &&
            (f.category === undefined || t.category === f.category) &&
            (f.tag === undefined || t.tags.includes(f.tag)) &&
            (f.email === undefined || t.email.toLowerCase() === f.email.toLowerCase()),
        );
        for (const [limit, offset] of [
          [50, 0],
          [7, 3],
          [200, 40],
        ] as const) {
          const got = index.list(filter, limit, offset);
          expect(got.total, JSON.stringify(filter)).toBe(expected.length);
          expect(got.items.map((i) => i.id)).toEqual(expected.slice(offset, offset + limit).map((t) => t.id));
        }
      }
      expect(index.size).toBe(model.size);
    }
  });

  it('builds list items with exactly the list view fields', () => {
    const item = listItem({ ...ticket(1, 1, 'open', 'a@x.example'), escalated: ['late'] });
    expect(Object.keys(item).sort()).toEqual(
      [
        'agent_id',
        'category',
        'close_request',
        'closed_at',
        'created_at',
        'due_at',
        'email',
        'fields',
        'id',
        'last_reply_at',
        'name',
        'page_url',
        'priority',
        'rating',
        'reply_count',
        'status',
        'subject',
        'tags',
        'updated_at',
      ].sort(),
    );
  });
});
